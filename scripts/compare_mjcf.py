#!/usr/bin/env python3
"""Read robots from their MJCF files into routh and into MuJoCo, and compare q̈.

routh reads each file at compile time (`#[mechanics(mjcf(path = "...", ...), gravity = [0, 0,
-9.81])]`, in a crate of its own built with `--release`) and prints its accelerations at a few
deterministic states; MuJoCo (`pip install mujoco`) loads the same file, and `mj_forward` gives its
q̈ at the same states with what routh does not model switched off: contacts, actuators, joint
limits, dry friction (`frictionloss`, read by routh only with `friction = ignore`, which this
script asks for when the file has it), equality constraints (MuJoCo's are soft: a file with them
is read with `equality = ignore` and compared without), and fluid forces (`density`, `viscosity`);
gravity is (0, 0, −9.81) on both sides. Joint springs and dampers, armatures, `ref`, default classes
and frames stay on: they are the model.

The states map onto each other joint by joint, by name: a hinge's or slide's coordinate is MuJoCo's
joint value (routh reads `ref`); a free joint's translation, quaternion (w first on both sides),
world-frame linear velocity and body angular velocity are routh's `<name>_x, _y, _z`, `<name>_q` and
their rates; a ball joint's quaternion and body angular velocity are routh's `<name>_q`. The table
gives, for each file, the number of velocities and max |Δq̈| / max |q̈| over the states.

    pip install mujoco
    python3 scripts/compare_mjcf.py tests/robots/*.xml      # the test suite's files
    python3 scripts/compare_mjcf.py path/to/robot.xml

Optional: nothing here runs in the test suite.
"""

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_urdf import build_crate  # noqa: E402

STATES = 5


def routh_source(path, extra):
    """A main printing routh's coordinate and velocity names, then per state q, v and q̈."""
    return f"""#![allow(dead_code)]
use routh::prelude::*;

#[derive(Mechanics)]
#[mechanics(mjcf(path = "{path}"{extra}), gravity = [0, 0, -g])]
pub struct Robot {{ pub g: f64 }}

fn main() {{
    let sys = Robot {{ g: 9.81 }};
    let n = Robot::DOF;
    let p = Robot::STATE_DIM - n;
    let join = |v: &[f64]| v.iter().map(|v| format!("{{v:e}}")).collect::<Vec<_>>().join(",");
    println!("{{}}", Robot::COORDINATES.join(","));
    println!("{{}}", Robot::STATE_NAMES[p..].join(","));
    for k in 0..{STATES} {{
        let x = State::<{{ Robot::STATE_DIM }}>::from_fn(|i, _| {{
            0.1 + 0.37 * (((i + 3 * k) * 7919) % 13) as f64 / 13.0 - 0.2 * ((i + k) % 2) as f64
        }});
        let a = sys.accelerations(0.0, &x).unwrap();
        println!("{{}}", join(&x.as_slice()[..p]));
        println!("{{}}", join(&x.as_slice()[p..]));
        println!("{{}}", join(a.as_slice()));
    }}
}}
"""


def keys(text):
    """The `mjcf(...)` keys this file needs to be read: dry friction and equalities left out."""
    extra = ""
    if any(float(v) != 0.0 for v in re.findall(r'\bfrictionloss="\s*([^"\s]+)', text)):
        extra += ", friction = ignore"
    if re.search(r"<equality>\s*<", text):
        extra += ", equality = ignore"
    return extra


def mujoco_accelerations(path, names, rates, states):
    """MuJoCo's q̈ in routh's velocity order at each (q, v) of `states`."""
    import mujoco
    import numpy as np

    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.gravity[:] = (0.0, 0.0, -9.81)
    model.opt.density, model.opt.viscosity = 0.0, 0.0
    for flag in ("CONTACT", "ACTUATION", "LIMIT", "FRICTIONLOSS", "EQUALITY"):
        model.opt.disableflags |= getattr(mujoco.mjtDisableBit, f"mjDSBL_{flag}")
    data = mujoco.MjData(model)
    # routh's position and velocity slots in MuJoCo's qpos and qvel, joint by joint.
    qpos, qvel = np.zeros(len(names), dtype=int), np.zeros(len(rates), dtype=int)
    for j in range(model.njnt):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j)
        if name is None:
            # routh's name for an unnamed joint: its body's and its place among the body's joints.
            body = model.jnt_bodyid[j]
            name = f"{mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, body)}_joint{j - model.body_jntadr[body] + 1}"
        kind, a, d = model.jnt_type[j], model.jnt_qposadr[j], model.jnt_dofadr[j]
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            for i, c in enumerate("xyz"):
                qpos[names.index(f"{name}_{c}")] = a + i
                qvel[rates.index(f"dot({name}_{c})")] = d + i
            quat, omega = (a + 3, d + 3)
        elif kind == mujoco.mjtJoint.mjJNT_BALL:
            quat, omega = (a, d)
        else:
            qpos[names.index(name)] = a
            qvel[rates.index(f"dot({name})")] = d
            continue
        for i, c in enumerate("wxyz"):
            qpos[names.index(f"{name}_q_{c}")] = quat + i
        for i in range(3):
            qvel[rates.index(f"omega{i + 1}({name}_q)")] = omega + i
    quats = [model.jnt_qposadr[j] + (3 if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else 0)
             for j in range(model.njnt) if model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_FREE, mujoco.mjtJoint.mjJNT_BALL)]
    out = []
    for q, v in states:
        data.qpos[qpos] = q
        data.qvel[qvel] = v
        # routh's quaternions of any norm turn by q/|q|.
        for a in quats:
            data.qpos[a:a + 4] /= np.linalg.norm(data.qpos[a:a + 4])
        mujoco.mj_forward(model, data)
        out.append(np.array(data.qacc[qvel]))
    return out


def main():
    import numpy as np

    paths = [Path(a).resolve() for a in sys.argv[1:] if not a.startswith("--")]
    if not paths:
        sys.exit(__doc__)
    print("| file | n | read with | max |Δq̈| / max |q̈| |")
    print("|---|---|---|---|")
    for path in paths:
        extra = keys(path.read_text())
        name = "mjcf_" + "".join(c if c.isalnum() else "_" for c in path.stem)
        try:
            binary, _ = build_crate(name, routh_source(path, extra), timed=False)
        except subprocess.CalledProcessError:
            print(f"| {path.name} | | routh does not read it (see the build's error above) | |")
            continue
        lines = subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.splitlines()
        names, rates = lines[0].split(","), lines[1].split(",")
        floats = lambda s: np.array([float(w) for w in s.split(",")])  # noqa: E731
        states = [(floats(lines[2 + 3 * k]), floats(lines[3 + 3 * k])) for k in range(STATES)]
        mine = [floats(lines[4 + 3 * k]) for k in range(STATES)]
        theirs = mujoco_accelerations(path, names, rates, states)
        gap = max(float(np.max(np.abs(a - b))) for a, b in zip(mine, theirs)) / max(float(np.max(np.abs(b))) for b in theirs)
        print(f"| {path.name} | {len(rates)} | `mjcf(path = ...{extra})` | {gap:.1e} |")


if __name__ == "__main__":
    main()
