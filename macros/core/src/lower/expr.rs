//! Lowering of DSL expressions (syn) to symbolic expressions.
//!
//! Meaning of the expression language:
//! - integer and float literals become exact rationals (`0.1` is 1/10, not the nearest f64);
//! - `+ - * /`, unary `-` and parentheses are the field operations;
//! - `x.powi(n)` / `powi(x, n)` need an integer literal `n`; `powf`, `sqrt`, `sin`, `cos`, `tan`,
//!   `exp`, `ln`, `sinh`, `cosh`, `tanh`, `atan2` work in method and function form;
//! - `pi` is π, exactly: sines and cosines of its multiples by 1/2, 1/3, 1/4 and 1/6 are numbers
//!   and square roots (a quarter turn `rot_z(pi / 2)` is a permutation with signs);
//! - a name is time `t`, a coordinate q, a parameter (struct field), a `define`d expression, or the
//!   action variable z of a contact Lagrangian (declared `action(z)`);
//! - `dot(e)` is the total time derivative along the motion, by the chain rule:
//!   d/dt e(t, q) = ∂e/∂t + Σₖ ∂e/∂qₖ · q̇ₖ. It is defined for functions of time and coordinates only.
//!
//! Defines may be written in any order; each is lowered once (on first use) and cycles are errors.

use proc_macro2::Span;
use rustc_hash::FxHashMap;
use symbolic::{Arena, Expr, Func, Rational};
use syn::spanned::Spanned;
use syn::{BinOp, Expr as SynExpr, Ident, Lit, UnOp};

use super::value::{GEOMETRY_FUNCTIONS, Value};
use crate::diagnostics::unknown;
use crate::layout::{Layout, Role};
use crate::model::HeldLagrangian;

/// Every function name the language knows, for hints: the smooth functions of the symbolic
/// engine's table ([`Func`], called as `x.f()` or `f(x)`), and the DSL's own `sqrt`, `powi`,
/// `powf` and `dot`.
const FUNCTIONS: &[&str] = &["sin", "cos", "tan", "exp", "ln", "sinh", "cosh", "tanh", "sqrt", "powi", "powf", "atan2", "dot"];

/// `Ok` if a function `fname` taking `n` arguments was given `found` (the receiver of a method
/// call counts), an error on the call otherwise.
pub fn check_arity(fname: &str, n: usize, found: usize, whole: Span) -> syn::Result<()> {
    if found == n {
        return Ok(());
    }
    Err(syn::Error::new(
        whole,
        format!(
            "`{fname}` takes {n} argument{} (counting the receiver of a method call), found {found}",
            if n == 1 { "" } else { "s" }
        ),
    ))
}

/// What a name in an expression refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name {
    Time,
    Coordinate(usize),
    Parameter(usize),
    Define(usize),
    Action,
    Input(usize),
}

enum DefineState {
    Pending,
    InProgress,
    Done(Value),
    /// Lowering failed and the error was reported once; later uses see a placeholder 0 so that
    /// independent mistakes elsewhere are still found, without repeating this one.
    Failed,
}

/// Lowers syn expressions in the scope of one model.
pub struct Lowerer<'a> {
    pub arena: &'a mut Arena,
    pub syms: &'a Layout,
    names: FxHashMap<String, Name>,
    coordinates: Vec<String>,
    /// Names in declaration order (coordinates, parameters, defines, `t`), for hints.
    known: Vec<String>,
    defines: &'a [crate::parse::Binding],
    define_state: Vec<DefineState>,
    /// Stack of defines being lowered, for cycle messages.
    define_stack: Vec<usize>,
    /// The arguments of the defines with parameters being applied, innermost last: a body sees
    /// its own frame only (and a define without parameters an empty one).
    locals: Vec<Vec<(String, Value)>>,
    /// While checking the body of a define with parameters for itself (unknown arguments): the
    /// checks that depend on values (a zero denominator, a unit axis, a rotation) are left to
    /// its applications.
    unknown_arguments: bool,
    /// The action variable's name (contact Lagrangians).
    action: Option<String>,
    /// The inputs' names.
    inputs: Vec<String>,
    /// Memo of total time derivatives, shared by every `dot` of the model.
    dot_cache: FxHashMap<Expr, Expr>,
    /// The total time derivative with its memo over every node differentiated so far: `dot` of
    /// a define built on others (a chain's positions, each its parent's plus one term)
    /// differentiates only what is new.
    dot_memo: Option<symbolic::Directional>,
    /// Nodes known to hold no velocity, action or input (see [`Lowerer::holds_rate_symbol`]).
    rate_free: rustc_hash::FxHashSet<Expr>,
    /// While lowering the Lagrangian over its velocities ([`Lowerer::held_lagrangian`]): each
    /// position whose rate `dot` took, with the symbol that stands for the rate and the rate.
    held: Option<Vec<(Expr, Expr, Expr)>>,
    /// While lowering a one-form: the differentials dqₖ and dt that `d<coordinate>` and `dt` denote.
    differentials: Option<(Vec<Expr>, Expr)>,
    /// While lowering a raw discrete Lagrangian or force: the nodes `q0(x)`, `q1(x)`, the step
    /// `h` and the time `t` of the first node.
    nodes: Option<Nodes>,
}

/// The symbols of a raw discrete system's expressions.
#[derive(Clone)]
pub struct Nodes {
    pub q0: Vec<Expr>,
    pub q1: Vec<Expr>,
    pub h: Expr,
    pub t0: Expr,
    /// The action z_k of a contact model.
    pub z0: Option<Expr>,
}

impl<'a> Lowerer<'a> {
    pub fn new(
        arena: &'a mut Arena,
        syms: &'a Layout,
        coordinates: &[Ident],
        parameters: &[Ident],
        action: Option<&Ident>,
        inputs: &[Ident],
        defines: &'a [crate::parse::Binding],
    ) -> Self {
        let mut names = FxHashMap::default();
        let mut known = Vec::new();
        for (i, c) in coordinates.iter().enumerate() {
            names.insert(c.to_string(), Name::Coordinate(i));
            known.push(c.to_string());
        }
        for (i, p) in parameters.iter().enumerate() {
            names.insert(p.to_string(), Name::Parameter(i));
            known.push(p.to_string());
        }
        for (i, d) in defines.iter().enumerate() {
            names.insert(d.name.to_string(), Name::Define(i));
            known.push(d.name.to_string());
        }
        if let Some(z) = action {
            names.insert(z.to_string(), Name::Action);
            known.push(z.to_string());
        }
        for (k, u) in inputs.iter().enumerate() {
            names.insert(u.to_string(), Name::Input(k));
            known.push(u.to_string());
        }
        names.insert("t".to_string(), Name::Time);
        known.push("t".to_string());
        Lowerer {
            arena,
            syms,
            names,
            coordinates: coordinates.iter().map(ToString::to_string).collect(),
            known,
            defines,
            define_state: defines.iter().map(|_| DefineState::Pending).collect(),
            define_stack: Vec::new(),
            locals: Vec::new(),
            unknown_arguments: false,
            action: action.map(ToString::to_string),
            inputs: inputs.iter().map(ToString::to_string).collect(),
            dot_cache: FxHashMap::default(),
            dot_memo: None,
            rate_free: rustc_hash::FxHashSet::default(),
            held: None,
            differentials: None,
            nodes: None,
        }
    }

    /// Lowers an expression of a raw discrete system, in the nodes `q0(x)`, `q1(x)`, the step `h`
    /// and the time `t` (of the first node).
    pub fn lower_discrete(&mut self, e: &SynExpr, nodes: &Nodes) -> syn::Result<Expr> {
        self.nodes = Some(nodes.clone());
        let result = self.lower(e);
        self.nodes = None;
        result
    }

    /// Lowers a one-form such as `dx - r * dphi` (or `dy - v * dt`), where `d<coordinate>` and
    /// `dt` are the differentials `dq` and `dt` (given as symbols).
    pub fn lower_oneform(&mut self, e: &SynExpr, dq: &[Expr], dt: Expr) -> syn::Result<Expr> {
        self.differentials = Some((dq.to_vec(), dt));
        let result = self.lower(e);
        self.differentials = None;
        result
    }

    /// The name of the action variable of a contact model (`None` without `action(...)`).
    pub fn action_name(&self) -> Option<&str> {
        self.action.as_deref()
    }

    /// The names of the ordinary coordinates, in order (without an orientation's quaternion).
    pub fn coordinate_names(&self) -> &[String] {
        &self.coordinates
    }

    /// Whether `e` depends on a velocity (then it is not a function of coordinates and time): the
    /// first one it depends on, as written in the DSL ([`Self::velocity_name`]).
    pub fn velocity_in(&self, e: Expr) -> Option<String> {
        let k = self.syms.qd.iter().position(|&v| self.arena.depends_on(e, v))?;
        Some(self.velocity_name(k))
    }

    /// How velocity `k` is written in the DSL: `dot(x)`, or `omega(R)[i]` for an orientation's.
    pub fn velocity_name(&self, k: usize) -> String {
        match self.syms.orientation_of_velocity(k) {
            Some((o, c)) => format!("omega({})[{c}]", o.name),
            None => format!("dot({})", self.coordinates[k]),
        }
    }

    /// The lowered value of define `i` (lowering it now if needed).
    pub fn define(&mut self, i: usize, used_at: Span) -> syn::Result<Value> {
        match self.define_state[i] {
            DefineState::Done(e) => Ok(e),
            DefineState::Failed => Ok(Value::Failed),
            DefineState::InProgress => Err(self.cycle_error(i, used_at)),
            DefineState::Pending if !self.defines[i].params.is_empty() => {
                let d = &self.defines[i];
                let params: Vec<String> = d.params.iter().map(ToString::to_string).collect();
                Err(syn::Error::new(used_at, format!("`{}` takes arguments: write `{}({})`", d.name, d.name, params.join(", "))))
            }
            DefineState::Pending => {
                self.define_state[i] = DefineState::InProgress;
                self.define_stack.push(i);
                let value = &self.defines[i].value;
                self.locals.push(Vec::new());
                let result = self.value(value);
                self.locals.pop();
                self.define_stack.pop();
                match result {
                    Ok(e) => {
                        self.define_state[i] = DefineState::Done(e);
                        Ok(e)
                    }
                    Err(err) => {
                        self.define_state[i] = DefineState::Failed;
                        Err(err)
                    }
                }
            }
        }
    }

    /// The error of a define `i` used, at `used_at`, while it is being lowered.
    fn cycle_error(&self, i: usize, used_at: Span) -> syn::Error {
        let start = self.define_stack.iter().position(|&d| d == i).unwrap_or(0);
        let mut cycle: Vec<String> = self.define_stack[start..].iter().map(|&d| self.defines[d].name.to_string()).collect();
        cycle.push(self.defines[i].name.to_string());
        syn::Error::new(
            used_at,
            format!(
                "cyclic `define`: {} refers back to itself; a define may use other defines but not itself",
                cycle.join(" → ")
            ),
        )
    }

    /// Applies define `i`, which takes parameters, to `args`: its body lowered with each
    /// parameter standing for the argument's value (of any shape). A body that fails once is not
    /// lowered again (its mistake is reported once).
    pub fn call_define(&mut self, i: usize, args: &[&SynExpr], whole: Span) -> syn::Result<Value> {
        let params: Vec<String> = self.defines[i].params.iter().map(ToString::to_string).collect();
        let name = self.defines[i].name.to_string();
        if args.len() != params.len() {
            return Err(syn::Error::new(
                whole,
                format!(
                    "`{name}` takes {} argument{}, `{name}({})`, found {}",
                    params.len(),
                    if params.len() == 1 { "" } else { "s" },
                    params.join(", "),
                    args.len()
                ),
            ));
        }
        let values = args.iter().map(|a| self.value(a)).collect::<syn::Result<Vec<Value>>>()?;
        self.apply_define(i, values, whole)
    }

    /// Lowers the body of define `i` (with parameters) with `values` for them.
    fn apply_define(&mut self, i: usize, values: Vec<Value>, used_at: Span) -> syn::Result<Value> {
        if matches!(self.define_state[i], DefineState::Failed) {
            return Ok(Value::Failed);
        }
        if self.define_stack.contains(&i) {
            return Err(self.cycle_error(i, used_at));
        }
        let frame: Vec<(String, Value)> = self.defines[i].params.iter().map(ToString::to_string).zip(values).collect();
        self.define_stack.push(i);
        self.locals.push(frame);
        let body = &self.defines[i].value;
        let result = self.value(body);
        self.locals.pop();
        self.define_stack.pop();
        if result.is_err() {
            self.define_state[i] = DefineState::Failed;
        }
        result
    }

    /// Lowers define `i`: a value, or for a define with parameters its body with every parameter
    /// of unknown value, so that its mistakes are reported even if it is never used.
    pub fn check_define(&mut self, i: usize) -> syn::Result<()> {
        if self.defines[i].params.is_empty() {
            return self.define(i, self.defines[i].name.span()).map(|_| ());
        }
        let unknown = vec![Value::Failed; self.defines[i].params.len()];
        self.unknown_arguments = true;
        let result = self.apply_define(i, unknown, self.defines[i].name.span()).map(|_| ());
        self.unknown_arguments = false;
        result
    }

    /// Whether a define's body is being checked without its arguments (value checks are left to
    /// its applications).
    pub fn unknown_arguments(&self) -> bool {
        self.unknown_arguments
    }

    /// Marks define `i` as failed (its mistake is reported): later uses see [`Value::Failed`].
    pub fn mark_failed(&mut self, i: usize) {
        self.define_state[i] = DefineState::Failed;
    }

    fn unknown_name(&self, ident: &Ident) -> syn::Error {
        let name = ident.to_string();
        if self.differentials.is_some() {
            // Inside a one-form the differentials `d<coordinate>` and `dt` are names too.
            let mut candidates = self.known.clone();
            candidates.extend(self.coordinates.iter().map(|c| format!("d{c}")));
            candidates.push("dt".to_owned());
            let known = format!(
                "Known names: {} (coordinates, parameters, defines, time `t`, and the differentials `d<coordinate>` and `dt`)",
                candidates.join(", ")
            );
            return unknown(ident.span(), format_args!("unknown name `{name}`"), &name, &candidates, known);
        }
        // `xdot`, `x_dot`, `dx`: a velocity written as a name.
        let stem = name.strip_suffix("_dot").or_else(|| name.strip_suffix("dot")).or_else(|| name.strip_prefix("d"));
        if let Some(c) = stem.filter(|c| self.coordinates.iter().any(|x| x == c)) {
            return syn::Error::new(
                ident.span(),
                format!("unknown name `{name}`; the velocity of coordinate `{c}` is written `dot({c})`"),
            );
        }
        let mut known = format!("Known names: {} (coordinates, parameters, defines and time `t`)", self.known.join(", "));
        // The names the contact literature gives the action: a likely undeclared `action(...)`.
        if self.action.is_none() && matches!(name.as_str(), "z" | "s" | "Z" | "S" | "action") {
            known.push_str(&format!(
                "; if `{name}` is the action variable of a contact (Herglotz) Lagrangian, declare it with `action({name})`"
            ));
        }
        unknown(ident.span(), format_args!("unknown name `{name}`"), &name, &self.known, known)
    }

    /// The symbolic value of a name.
    fn name(&mut self, ident: &Ident) -> syn::Result<Value> {
        if let Some(o) = self.syms.orientations.iter().find(|o| o.name == *ident) {
            let quaternion: [Expr; 4] = std::array::from_fn(|i| self.syms.q[o.q_start + i]);
            let omega: [Expr; 3] = std::array::from_fn(|i| self.syms.qd[o.v_start + i]);
            let matrix = self.arena.quaternion_rotation(&quaternion, o.norm2);
            return Ok(Value::rotation(&self.arena.rotation_with_rate(matrix, omega)));
        }
        if let Some(frame) = self.locals.last()
            && let Some((_, v)) = frame.iter().find(|(p, _)| ident == p)
        {
            return Ok(*v);
        }
        if let Some(Name::Define(i)) = self.names.get(&ident.to_string()).copied() {
            return self.define(i, ident.span());
        }
        self.scalar_name(ident).map(Value::Scalar)
    }

    /// The symbolic value of a name that is not a vector or matrix define.
    fn scalar_name(&mut self, ident: &Ident) -> syn::Result<Expr> {
        if let Some(nodes) = &self.nodes {
            match self.names.get(&ident.to_string()).copied() {
                Some(Name::Coordinate(_)) => {
                    return Err(syn::Error::new(
                        ident.span(),
                        format!(
                            "a raw discrete Lagrangian or force is written in the nodes of a step: name the node, `q0({ident})` \
                             or `q1({ident})`"
                        ),
                    ));
                }
                Some(Name::Time) => return Ok(nodes.t0),
                Some(Name::Action) => {
                    if let Some(z0) = nodes.z0 {
                        return Ok(z0);
                    }
                }
                None if ident == "h" => return Ok(nodes.h),
                _ => {}
            }
        }
        match self.names.get(&ident.to_string()).copied() {
            Some(Name::Time) => Ok(self.syms.t),
            Some(Name::Coordinate(i)) => Ok(self.syms.q[i]),
            Some(Name::Parameter(i)) => Ok(self.syms.params[i]),
            Some(Name::Define(i)) => match self.define(i, ident.span())? {
                Value::Scalar(e) => Ok(e),
                Value::Failed => Ok(self.arena.zero()),
                v => Err(syn::Error::new(ident.span(), format!("`{ident}` is {}, but a scalar is needed here", v.shape()))),
            },
            Some(Name::Action) => Ok(self.syms.z.unwrap_or_else(|| self.arena.zero())),
            Some(Name::Input(k)) => Ok(self.syms.u[k]),
            None if ident == "pi" => Ok(self.arena.pi()),
            None => {
                if let Some((dq, dt)) = &self.differentials {
                    let name = ident.to_string();
                    if name == "dt" {
                        return Ok(*dt);
                    }
                    if let Some(k) = name.strip_prefix('d').and_then(|c| self.coordinates.iter().position(|x| x == c)) {
                        return Ok(dq[k]);
                    }
                }
                Err(self.unknown_name(ident))
            }
        }
    }

    /// Every expression made as a total time derivative d/dt f(t, q) (by `dot` and its vector
    /// and rotation forms): velocities whose Hamel terms vanish identically.
    pub fn exact_rates(&self) -> rustc_hash::FxHashSet<Expr> {
        self.dot_cache.values().copied().collect()
    }

    /// Whether the lowerer is inside a raw discrete system (nodes, not velocities).
    pub fn in_discrete_nodes(&self) -> bool {
        self.nodes.is_some()
    }

    /// Total time derivative of `e` along the motion: ∂e/∂t + Σₖ ∂e/∂qₖ q̇ₖ.
    pub fn total_derivative(&mut self, e: Expr, span: Span) -> syn::Result<Expr> {
        if self.nodes.is_some() {
            return Err(syn::Error::new(
                span,
                "`dot` has no meaning in a raw discrete system: write velocities as (q1(x) - q0(x)) / h",
            ));
        }
        if let Some(&d) = self.dot_cache.get(&e) {
            return Ok(self.hold(e, d));
        }
        // Whether `e` holds a velocity, the action or an input: one walk of what no earlier `dot`
        // walked (the defines of a chain build on each other); the symbols only when one is found.
        let free = if self.holds_rate_symbol(e) { self.arena.free_symbols(e) } else { Vec::new() };
        let depends = |v: &Expr| free.binary_search(v).is_ok();
        if let Some(k) = self.syms.qd.iter().position(depends) {
            return Err(syn::Error::new(
                span,
                format!(
                    "`dot` needs a function of the coordinates and time, but this depends on the velocity `dot({})`; \
                     accelerations are not part of a Lagrangian",
                    self.coordinates[k]
                ),
            ));
        }
        if self.syms.z.as_ref().is_some_and(depends) {
            let name = self.action.clone().unwrap_or_default();
            return Err(syn::Error::new(
                span,
                format!(
                    "`dot` of the action variable `{name}`: its rate is not free, d{name}/dt = L (the Lagrangian) by \
                     Herglotz's principle; write the Lagrangian and forces in terms of `{name}` itself"
                ),
            ));
        }
        if let Some(k) = self.syms.u.iter().position(depends) {
            return Err(syn::Error::new(
                span,
                format!("`dot` of the input `{}`: inputs are given at run time and their rates are unknown", self.inputs[k]),
            ));
        }
        let memo = self.dot_memo.get_or_insert_with(|| self.syms.total_derivative_kept(self.arena));
        let d = self.arena.directional_kept(e, memo);
        self.dot_cache.insert(e, d);
        Ok(self.hold(e, d))
    }

    /// Whether `e` holds a velocity, the action variable or an input (what `dot` cannot take). The
    /// nodes found free of them are remembered, so that the walks of all `dot`s together are
    /// linear in the model's size.
    fn holds_rate_symbol(&mut self, e: Expr) -> bool {
        let syms = self.syms;
        let forbidden = |s: Expr| syms.qd.contains(&s) || syms.z == Some(s) || syms.u.contains(&s);
        let mut visited = Vec::new();
        let mut stack = vec![e];
        while let Some(x) = stack.pop() {
            if self.rate_free.contains(&x) {
                continue;
            }
            match self.arena.node(x) {
                symbolic::Node::Sym(_) if forbidden(x) => {
                    // The nodes marked on the way down are not all free of it: unmark this walk's.
                    for v in visited {
                        self.rate_free.remove(&v);
                    }
                    return true;
                }
                node => node.for_each_child(|c| stack.push(c)),
            }
            self.rate_free.insert(x);
            visited.push(x);
        }
        false
    }

    /// The rate `d` of `position`, or while lowering over the velocities the symbol standing for
    /// it (one per position; a zero rate stays zero).
    pub fn hold(&mut self, position: Expr, d: Expr) -> Expr {
        let Some(held) = &mut self.held else { return d };
        if d == self.arena.zero() {
            return d;
        }
        if let Some(&(_, s, _)) = held.iter().find(|h| h.0 == position) {
            return s;
        }
        let s = self.syms.symbol(self.arena, Role::HeldRate(held.len()));
        held.push((position, s, d));
        s
    }

    /// The Lagrangian `e` lowered once more with the rate of every position it takes (`dot(x)`,
    /// inside defines too) held as a symbol: L̃(t, q, v) with the symbols and their rates, for the
    /// recursive dynamics to read the kinetic energy's structure from (it checks that putting the
    /// rates back gives L). `None` if that lowering fails. The defines are lowered afresh for it
    /// and left as they were.
    pub fn held_lagrangian(
        &mut self,
        e: Option<&SynExpr>,
        extra: impl FnOnce(&mut Self) -> Option<Expr>,
    ) -> Option<HeldLagrangian> {
        let saved = std::mem::replace(&mut self.define_state, self.defines.iter().map(|_| DefineState::Pending).collect());
        self.held = Some(Vec::new());
        let written = match e {
            Some(e) => self.lower(e).ok(),
            None => Some(self.arena.zero()),
        };
        let extra = extra(self);
        let held = self.held.take().unwrap_or_default();
        self.define_state = saved;
        let lagrangian = self.arena.add2(written?, extra?);
        Some(HeldLagrangian { lagrangian, rates: held.into_iter().map(|(_, s, d)| (s, d)).collect() })
    }

    fn literal(&mut self, lit: &Lit) -> syn::Result<Expr> {
        let digits = match lit {
            Lit::Int(i) => i.base10_digits().to_string(),
            Lit::Float(f) => f.base10_digits().to_string(),
            _ => {
                return Err(syn::Error::new(lit.span(), "only integer and float literals are numbers here"));
            }
        };
        // The generated code computes in f64: a literal it would turn into ∞ or 0 is refused.
        let value: f64 = digits.parse().unwrap_or(f64::NAN);
        let mantissa = digits.split(['e', 'E']).next().unwrap_or("");
        if !value.is_finite() || (value == 0.0 && mantissa.bytes().any(|c| matches!(c, b'1'..=b'9'))) {
            let what = if value == 0.0 { "0" } else { "infinite" };
            return Err(syn::Error::new(
                lit.span(),
                format!(
                    "this literal is outside the range of f64: the generated code would compute with it as {what}; rescale the model's units"
                ),
            ));
        }
        if let Some(r) = Rational::parse_decimal(&digits) {
            return Ok(self.arena.num(r));
        }
        // Exact still: the mantissa times powers of ten that each fit a rational (ħ = 1.054571817e-34).
        match Rational::parse_decimal_factors(&digits) {
            Some(factors) => {
                let nums: Vec<Expr> = factors.into_iter().map(|r| self.arena.num(r)).collect();
                Ok(self.arena.mul(&nums))
            }
            None => Err(syn::Error::new(
                lit.span(),
                "this literal has more than 38 significant digits, more than routh's exact rationals hold; an f64 keeps 17, so round it",
            )),
        }
    }

    /// An integer literal, possibly negated, as needed by `powi` (`None` if `e` is none, or if it
    /// does not fit in 64 bits).
    pub fn integer_literal(e: &SynExpr) -> Option<i64> {
        let (negative, lit) = Self::integer_literal_parts(e)?;
        lit.base10_parse::<i64>().ok().map(|n| if negative { -n } else { n })
    }

    /// The integer literal `e` is (possibly negated or parenthesized), whatever its size, and
    /// whether it is negated.
    fn integer_literal_parts(e: &SynExpr) -> Option<(bool, &syn::LitInt)> {
        match e {
            SynExpr::Lit(l) => match &l.lit {
                Lit::Int(i) => Some((false, i)),
                _ => None,
            },
            SynExpr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => Self::integer_literal_parts(&u.expr).map(|(n, i)| (!n, i)),
            SynExpr::Paren(p) => Self::integer_literal_parts(&p.expr),
            SynExpr::Group(g) => Self::integer_literal_parts(&g.expr),
            _ => None,
        }
    }

    fn powi(&mut self, base: Expr, exponent: &SynExpr) -> syn::Result<Expr> {
        match Self::integer_literal(exponent) {
            Some(n) => Ok(self.arena.powi(base, n)),
            None if Self::integer_literal_parts(exponent).is_some() => Err(syn::Error::new(
                exponent.span(),
                "this `powi` exponent does not fit in a 64-bit integer; no model needs a power this large",
            )),
            None => Err(syn::Error::new(
                exponent.span(),
                "`powi` needs an integer literal exponent such as `2` or `-1`; use `powf` for a real exponent",
            )),
        }
    }

    /// A denominator (of a division or a negative power, `what`) that is identically zero makes the
    /// model undefined everywhere: a compile error on `src`, not a NaN at run time.
    pub fn nonzero_denominator(&self, e: Expr, src: &SynExpr, what: &str) -> syn::Result<()> {
        if self.unknown_arguments() {
            return Ok(());
        }
        if self.arena.zero_test(e).is_zero() {
            return Err(syn::Error::new_spanned(
                src,
                format!("this expression is identically zero, so {what} is undefined everywhere (the model would be NaN)"),
            ));
        }
        Ok(())
    }

    /// Applies the function `name` to a receiver and arguments (method and function forms share this).
    fn apply(&mut self, name: &Ident, args: &[&SynExpr], whole: Span) -> syn::Result<Value> {
        if let Some(Name::Define(i)) = self.names.get(&name.to_string()).copied()
            && !self.defines[i].params.is_empty()
        {
            return self.call_define(i, args, whole);
        }
        if let Some(v) = self.geometry(name, args, whole)? {
            return Ok(v);
        }
        if name == "dot" && args.len() == 1 {
            // dot of a coordinate is its velocity symbol; of anything else the chain rule.
            let inner = self.value(args[0])?;
            return self.value_derivative(inner, whole);
        }
        self.scalar_function(name, args, whole).map(Value::Scalar)
    }

    /// Applies a scalar function.
    fn scalar_function(&mut self, name: &Ident, args: &[&SynExpr], whole: Span) -> syn::Result<Expr> {
        let fname = name.to_string();
        let arity = |n: usize| check_arity(&fname, n, args.len(), whole);
        if let Some(f) = Func::from_name(&fname).filter(|f| f.is_smooth()) {
            arity(f.arity())?;
            let xs = args.iter().map(|a| self.lower(a)).collect::<syn::Result<Vec<Expr>>>()?;
            return Ok(self.arena.call(f, &xs));
        }
        if let (Some(nodes), "q0" | "q1") = (&self.nodes, fname.as_str()) {
            arity(1)?;
            let coordinate = match args[0] {
                SynExpr::Path(p) => p.path.get_ident().and_then(|id| self.coordinates.iter().position(|c| id == c)),
                _ => None,
            };
            let Some(i) = coordinate else {
                return Err(syn::Error::new(
                    args[0].span(),
                    format!("`{fname}(...)` takes a coordinate: the node's value of it"),
                ));
            };
            return Ok(if fname == "q0" { nodes.q0[i] } else { nodes.q1[i] });
        }
        match fname.as_str() {
            "sqrt" => {
                arity(1)?;
                let x = self.lower(args[0])?;
                Ok(self.arena.sqrt(x))
            }
            "powi" => {
                arity(2)?;
                let x = self.lower(args[0])?;
                if Self::integer_literal(args[1]).is_some_and(|n| n < 0) {
                    self.nonzero_denominator(x, args[0], "a negative power of it")?;
                }
                self.powi(x, args[1])
            }
            "powf" => {
                arity(2)?;
                let x = self.lower(args[0])?;
                let y = self.lower(args[1])?;
                Ok(self.arena.pow(x, y))
            }
            "dot" => arity(1).map(|()| self.arena.zero()),
            // E is derived, not a function of the DSL: it stands alone as an output.
            "energy" => Err(syn::Error::new(
                name.span(),
                "`energy()` is the model's energy E as an output of its own (`output(e = energy())`), not a function \
                 that enters an expression; compute a function of E from that output's column, or write its formula \
                 out as an output",
            )),
            "log" | "log10" | "log2" => Err(syn::Error::new(
                name.span(),
                format!("unsupported function `{fname}`; use `ln` (natural logarithm) and divide by a constant for other bases"),
            )),
            "abs" | "signum" | "min" | "max" | "floor" | "ceil" | "round" => Err(syn::Error::new(
                name.span(),
                format!("unsupported function `{fname}`: it is not smooth, and the equations of motion need derivatives"),
            )),
            _ if self.nodes.is_some() && fname.starts_with('q') && fname[1..].chars().all(|c| c.is_ascii_digit()) => {
                Err(syn::Error::new(
                    name.span(),
                    format!(
                        "a discrete Lagrangian L_d(q0, q1, h, t) has two nodes: `q0(x)` is the value of the coordinate `x` at \
                         the start of the step and `q1(x)` at its end; there is no `{fname}`"
                    ),
                ))
            }
            _ => {
                let mut functions: Vec<&str> = FUNCTIONS.to_vec();
                functions.extend(GEOMETRY_FUNCTIONS);
                if self.nodes.is_some() {
                    functions.extend(["q0", "q1"]);
                }
                let known = format!("Supported: {}", functions.join(", "));
                Err(unknown(name.span(), format_args!("unsupported function `{fname}`"), &fname, &functions, known))
            }
        }
    }

    /// Lowers one DSL expression, which must be a scalar.
    pub fn lower(&mut self, e: &SynExpr) -> syn::Result<Expr> {
        self.scalar(e)
    }

    /// Lowers a scalar expression in which the names of `frame` stand for their symbols (shadowing
    /// the model's names), e.g. a quotient map's inverse written in its shape coordinates.
    pub fn lower_with(&mut self, frame: &[(String, Expr)], e: &SynExpr) -> syn::Result<Expr> {
        self.locals.push(frame.iter().map(|(n, x)| (n.clone(), Value::Scalar(*x))).collect());
        let result = self.scalar(e);
        self.locals.pop();
        result
    }

    /// Whether `name` already names something of the model: a coordinate, parameter, define,
    /// input, the action or the time.
    pub fn is_name(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    /// Lowers one DSL expression: a scalar, vector or matrix.
    pub fn value(&mut self, e: &SynExpr) -> syn::Result<Value> {
        match e {
            SynExpr::Lit(l) => self.literal(&l.lit).map(Value::Scalar),
            SynExpr::Paren(p) => self.value(&p.expr),
            SynExpr::Group(g) => self.value(&g.expr),
            SynExpr::Array(a) => self.array(a),
            SynExpr::Index(ix) => self.index(ix),
            SynExpr::Path(p) => match p.path.get_ident() {
                Some(ident) if p.qself.is_none() => self.name(ident),
                _ => Err(syn::Error::new(p.span(), "expected a plain name (coordinate, parameter, define or `t`), not a path")),
            },
            SynExpr::Unary(u) => match u.op {
                UnOp::Neg(_) => self.negation(&u.expr),
                _ => Err(syn::Error::new(u.op.span(), "unsupported operator: only unary `-` is allowed")),
            },
            SynExpr::Binary(b) => {
                let op = b.op;
                match op {
                    BinOp::Add(_) => self.sum(&b.left, &b.right, false),
                    BinOp::Sub(_) => self.sum(&b.left, &b.right, true),
                    BinOp::Mul(_) => self.product(&b.left, &b.right),
                    BinOp::Div(_) => self.quotient(&b.left, &b.right),
                    BinOp::BitXor(_) => Err(syn::Error::new(
                        op.span(),
                        "`^` is bitwise XOR in Rust, not a power; write `x.powi(2)` (integer exponent) or `x.powf(y)`",
                    )),
                    _ => Err(syn::Error::new(
                        op.span(),
                        "unsupported operator: expressions use `+`, `-`, `*`, `/` and functions such as `powi`",
                    )),
                }
            }
            SynExpr::MethodCall(m) => {
                let mut args: Vec<&SynExpr> = vec![&m.receiver];
                args.extend(m.args.iter());
                if m.turbofish.is_some() {
                    return Err(syn::Error::new(m.method.span(), "turbofish is not supported here"));
                }
                self.apply(&m.method, &args, m.span())
            }
            SynExpr::Call(c) => {
                let name = match &*c.func {
                    SynExpr::Path(p) if p.qself.is_none() => {
                        // `sin(x)` or `f64::sin(x)`.
                        let segs = &p.path.segments;
                        let ok = segs.len() == 1 || (segs.len() == 2 && segs[0].ident == "f64");
                        if ok { segs.last().map(|s| s.ident.clone()) } else { None }
                    }
                    _ => None,
                };
                match name {
                    Some(name) => {
                        let args: Vec<&SynExpr> = c.args.iter().collect();
                        self.apply(&name, &args, c.span())
                    }
                    None => Err(syn::Error::new(c.func.span(), "expected a function name such as `sin` or `dot`")),
                }
            }
            _ => Err(syn::Error::new(
                e.span(),
                "unsupported expression: use numbers, names, vectors `[x, y, z]`, `+ - * /`, parentheses and functions \
                 (sin, cos, powi, dot, rot_z, cross, ...)",
            )),
        }
    }
}
