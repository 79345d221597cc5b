//! An MJCF file's default classes (`<default>`), as MuJoCo resolves them for the attributes the
//! reader takes from joints and equality constraints.
//!
//! The `<default>` element of `<mujoco>` is the class `main`; each `<default class="c">` within a
//! class is a class c whose defaults are its parent's but where it sets its own. An element's class
//! is its `class`, else (for an element within bodies) the `childclass` of the nearest `<body>` or
//! `<frame>` around it (the element's own body's included), else `main`; an attribute the element
//! does not give is its class's `<joint>` (or `<equality>`) default's, else the nearest enclosing
//! class's that gives it, else MuJoCo's own default.

use std::collections::HashMap;

use super::description::Place;

/// The classes by name: each one's parent class and its defaults, one element per kind.
pub(super) struct Defaults<'a> {
    classes: HashMap<&'a str, Class<'a>>,
}

struct Class<'a> {
    parent: Option<&'a str>,
    elements: Vec<roxmltree::Node<'a, 'a>>,
}

/// The top class's name.
const MAIN: &str = "main";

impl<'a> Defaults<'a> {
    /// The default classes of the `<mujoco>` element `root`; a class named twice, or one within
    /// no class, is an error.
    pub(super) fn read(place: &Place, root: roxmltree::Node<'a, 'a>) -> syn::Result<Self> {
        let mut classes = HashMap::new();
        let mut stack: Vec<(roxmltree::Node<'a, 'a>, Option<&'a str>)> =
            root.children().filter(|n| n.has_tag_name("default")).map(|d| (d, None)).collect();
        if stack.len() > 1 {
            return Err(place.error(stack[1].0, "a second top-level `<default>`: MuJoCo's model has one"));
        }
        while let Some((node, parent)) = stack.pop() {
            let name = match (node.attribute("class"), parent) {
                (Some(c), _) => c,
                (None, None) => MAIN,
                (None, Some(_)) => return Err(place.error(node, "a nested `<default>` names its `class`")),
            };
            let elements = node.children().filter(|n| n.is_element() && !n.has_tag_name("default")).collect();
            if classes.insert(name, Class { parent, elements }).is_some() {
                return Err(place.error(node, format!("the default class `{name}` is defined twice")));
            }
            stack.extend(node.children().filter(|n| n.has_tag_name("default")).map(|d| (d, Some(name))));
        }
        Ok(Defaults { classes })
    }

    /// The element whose attribute `attr` the `<tag>` element `node` takes: `node` itself where it
    /// gives it or no class does, else the nearest class default that gives it.
    pub(super) fn source(
        &self,
        place: &Place,
        node: roxmltree::Node<'a, 'a>,
        tag: &str,
        attr: &str,
    ) -> syn::Result<roxmltree::Node<'a, 'a>> {
        if node.attribute(attr).is_some() {
            return Ok(node);
        }
        let mut class = self.class_of(place, node)?;
        // A class's parents are a chain no longer than the classes (each defined once).
        for _ in 0..=self.classes.len() {
            let Some(name) = class else { break };
            let Some(c) = self.classes.get(name) else { break };
            if let Some(d) = c.elements.iter().find(|e| e.has_tag_name(tag) && e.attribute(attr).is_some()) {
                return Ok(*d);
            }
            class = c.parent;
        }
        Ok(node)
    }

    /// `node`'s class: its own `class`, else the nearest enclosing `childclass`, else `main` (none
    /// where the file has no defaults).
    fn class_of(&self, place: &Place, node: roxmltree::Node<'a, 'a>) -> syn::Result<Option<&'a str>> {
        let named = node.attribute("class").or_else(|| {
            node.ancestors()
                .skip(1)
                .take_while(|a| !a.has_tag_name("worldbody"))
                .filter(|a| a.has_tag_name("body") || a.has_tag_name("frame"))
                .find_map(|a| a.attribute("childclass"))
        });
        match named {
            Some(c) if self.classes.contains_key(c) => Ok(self.classes.get_key_value(c).map(|(k, _)| *k)),
            Some(c) => Err(place.error(node, format!("the default class `{c}` is not defined"))),
            None => Ok(self.classes.get_key_value(MAIN).map(|(k, _)| *k)),
        }
    }
}
