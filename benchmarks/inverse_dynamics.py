"""Inverse dynamics in actuated coordinates: microseconds per evaluation.

3-RRR by the recursive DeNOC formulation (femdyn.reference.rrr) and the Stewart-Gough platform by
Gauss/Appell (femdyn.reference.stewart), each along its smooth trajectory; then Gauss/Appell for
semi-regular platforms with more legs (least squares, one 6 x n solve), to show how the cost grows
with the number of legs.  Forward (3-RRR) and direct (Stewart) dynamics are timed alongside.

The same manipulators as femdyn DAE models (femdyn.reference.models) are timed next to them:

* DAE servo step: one BEM time step with servo constraints along the same trajectory, i.e. one
  inverse-dynamics solve of the DAE (Newton's method on the full saddle-point system, KLU
  refactorisation; the Newton iterations per step are printed);
* DAE instantaneous (Stewart): one sparse saddle-point solve at acceleration level, inverse
  (femdyn.model.instantaneous.inverse_dynamics) and direct (femdyn.model.instantaneous.accelerations); the
  3-RRR has augmented joint angles, which this solve does not take;
* DAE forward step: one BEM step without servos under the actuator forces of the same trajectory
  (3-RRR: crank torques, Stewart: leg forces), and, for more legs, the instantaneous direct dynamics.
  The DAE servo path needs as many inputs as servo rows, so its inverse dynamics exists for six legs
  only.

Each figure is the best of --repeat passes over --evaluations states (or steps).
Usage: python benchmarks/inverse_dynamics.py [--evaluations 200] [--repeat 3] [--legs 6 12 24 48 96 192]
                                              [--dae-legs 6 12 24 48] [--json FILE]
"""
import argparse
import json
import time
import warnings

import numpy as np

from femdyn.integrators.energy_momentum import EnergyMomentum
from femdyn.integrators.setup import prepare
from femdyn.model.instantaneous import accelerations, inverse_dynamics
from femdyn.reference import rrr, stewart
from femdyn.reference.models import (
    platform_target_accelerations,
    rrr_model,
    rrr_state,
    stewart_model,
    stewart_state,
)

T_END = 1.5
AXIAL_INERTIA = 1e-8
"""Legs' axial inertia of the DAE models here (relative; the default of femdyn.reference.models is
1e-10): the cost does not depend on it, but prepare's projection (a Cholesky factorisation of
G M^-1 G^T) fails for 48 and more legs at 1e-10."""


def best_time(function, states, repeat):
    """Best over ``repeat`` passes of the mean wall time of function(*state), in microseconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for state in states:
            function(*state)
        best = min(best, (time.perf_counter() - start) / len(states))
    return 1e6 * best


def best_steps(model, setup, steps, repeat):
    """Best over ``repeat`` passes of the mean wall time of one BEM step, in microseconds, over
    ``steps`` steps to T_END from the prepared state; also the mean Newton iterations per step."""
    dt = T_END / steps
    stepper = EnergyMomentum(setup.model, dt, setup.active_rows)
    best, iterations = np.inf, 0
    for _ in range(repeat):
        q, v, lam, states = setup.q0.copy(), setup.v0.copy(), np.zeros(model.m), model.initial_states(setup.q0)
        iterations = 0
        start = time.perf_counter()
        for k in range(steps):
            r = stepper.step(k * dt, q, v, lam, states)
            q, v, lam, states = r.q, r.v, r.lam, r.states
            iterations += r.iterations
        best = min(best, (time.perf_counter() - start) / steps)
    return 1e6 * best, iterations / steps


def rrr_figures(evaluations, repeat):
    params = rrr.RRRParameters(gravity=(0.0, -9.81))
    poses, twists, twist_dots = rrr.circle_trajectory(np.linspace(0.0, T_END, evaluations))
    inverse = [(params, p, w, wd) for p, w, wd in zip(poses, twists, twist_dots)]
    forward = [(params, rrr.inverse_kinematics(params, p), rrr.actuated_rates(params, p, w),
                rrr.inverse_dynamics(params, p, w, wd), p) for p, w, wd in zip(poses, twists, twist_dots)]
    return {"inverse_us": best_time(rrr.inverse_dynamics, inverse, repeat),
            "forward_us": best_time(rrr.forward_dynamics, forward, repeat)}


def rrr_dae_figures(evaluations, repeat):
    """BEM steps of the 3-RRR DAE: with the servo constraints of circle_trajectory (inverse), and
    under the recursive crank torques of that motion, interpolated (forward)."""
    params = rrr.RRRParameters(gravity=(0.0, -9.81))
    pose0, twist0, _ = rrr.circle_trajectory(0.0)
    servo = rrr_model(params, servo=True)
    setup = prepare(servo, *rrr_state(servo, params, pose0, twist0))
    inverse_us, inverse_it = best_steps(servo, setup, evaluations, repeat)
    times = np.linspace(0.0, T_END, evaluations + 1)
    tau = np.array([rrr.inverse_dynamics(params, *m) for m in zip(*rrr.circle_trajectory(times))])
    free = rrr_model(params, torques=[lambda t, j=j: np.interp(t, times, tau[:, j]) for j in range(3)])
    setup = prepare(free, *rrr_state(free, params, pose0, twist0))
    forward_us, forward_it = best_steps(free, setup, evaluations, repeat)
    return {"n": servo.n, "m": servo.m, "servo_step_us": inverse_us, "servo_newton": inverse_it,
            "forward_step_us": forward_us, "forward_newton": forward_it}


def stewart_figures(n_legs, evaluations, repeat):
    params = stewart.StewartParameters(*stewart.stewart_geometry(n_legs))
    states = [stewart.platform_trajectory(params, t) for t in np.linspace(0.0, T_END, evaluations)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # least squares for n != 6 is what is measured
        inverse = [(params, *s) for s in states]
        direct = [(params, *s[:3], stewart.inverse_dynamics(params, *s)) for s in states]
        inverse_us = best_time(stewart.inverse_dynamics, inverse, repeat)
    return {"legs": n_legs, "inverse_us": inverse_us, "direct_us": best_time(stewart.direct_dynamics, direct, repeat)}


def stewart_dae_figures(n_legs, evaluations, repeat):
    """The Stewart DAE with n legs: instantaneous direct dynamics and a forward BEM step under the
    (Gauss/Appell) leg forces of platform_trajectory; with six legs also the servo step and the
    instantaneous inverse dynamics."""
    params = stewart.StewartParameters(*stewart.stewart_geometry(n_legs))
    times = np.linspace(0.0, T_END, evaluations)
    motion = [stewart.platform_trajectory(params, t) for t in times]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forces = np.array([stewart.inverse_dynamics(params, *s) for s in motion])
    loads = [lambda t, i=i: np.interp(t, times, forces[:, i]) for i in range(n_legs)]
    free = stewart_model(params, forces=loads, axial_inertia=AXIAL_INERTIA)
    placed = [(free, *stewart_state(free, params, *s[:3]), (), t) for t, s in zip(times, motion)]
    out = {"legs": n_legs, "n": free.n, "m": free.m,
           "direct_us": best_time(accelerations, placed, repeat)}
    setup = prepare(free, *stewart_state(free, params, *motion[0][:3]))
    out["forward_step_us"], out["forward_newton"] = best_steps(free, setup, evaluations, repeat)
    if n_legs == 6:
        servo = stewart_model(params, servo=True, axial_inertia=AXIAL_INERTIA)
        targets = []
        for t, (position, rotation, twist, twist_dot) in zip(times, motion):
            q, v = stewart_state(servo, params, position, rotation, twist)
            targets.append((servo, q, v, platform_target_accelerations(servo, q, twist, twist_dot), t))
        out["inverse_us"] = best_time(inverse_dynamics, targets, repeat)
        setup = prepare(servo, *stewart_state(servo, params, *motion[0][:3]))
        out["servo_step_us"], out["servo_newton"] = best_steps(servo, setup, evaluations, repeat)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--legs", type=int, nargs="+", default=[6, 12, 24, 48, 96, 192])
    parser.add_argument("--dae-legs", type=int, nargs="*", default=[6, 12, 24, 48],
                        help="leg counts for the DAE figures (6 gives the servo path too)")
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    three_rrr = rrr_figures(args.evaluations, args.repeat)
    three_rrr_dae = rrr_dae_figures(args.evaluations, args.repeat)
    legs = [stewart_figures(n, args.evaluations, args.repeat) for n in args.legs]
    dae = [stewart_dae_figures(n, args.evaluations, args.repeat) for n in args.dae_legs]
    r, d = three_rrr, three_rrr_dae
    print(f"3-RRR, recursive DeNOC:  inverse {r['inverse_us']:9.1f} us   forward {r['forward_us']:9.1f} us")
    print(f"3-RRR, DAE (n = {d['n']}, m = {d['m']}):  servo step {d['servo_step_us']:9.1f} us "
          f"({d['servo_newton']:.2f} Newton it.)   forward step {d['forward_step_us']:9.1f} us "
          f"({d['forward_newton']:.2f} Newton it.)")
    print("Stewart-Gough, Gauss/Appell:")
    print(f"{'legs':>6} {'inverse us':>11} {'direct us':>10} {'us/leg':>8} {'x 6 legs':>9}")
    base = legs[0]["inverse_us"]
    for row in legs:
        print(f"{row['legs']:6d} {row['inverse_us']:11.1f} {row['direct_us']:10.1f} "
              f"{row['inverse_us'] / row['legs']:8.1f} {row['inverse_us'] / base:9.2f}")
    if dae:
        print("Stewart-Gough, DAE (inverse: six legs only):")
        print(f"{'legs':>6} {'n':>5} {'m':>5} {'servo step us':>14} {'inverse us':>11} {'direct us':>10} "
              f"{'forward step us':>16} {'x 6 legs':>9}")
        first = dae[0]["direct_us"]
        for row in dae:
            servo = f"{row['servo_step_us']:14.1f}" if "servo_step_us" in row else f"{'-':>14}"
            inverse = f"{row['inverse_us']:11.1f}" if "inverse_us" in row else f"{'-':>11}"
            print(f"{row['legs']:6d} {row['n']:5d} {row['m']:5d} {servo} {inverse} {row['direct_us']:10.1f} "
                  f"{row['forward_step_us']:16.1f} {row['direct_us'] / first:9.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rrr": three_rrr, "rrr_dae": three_rrr_dae, "stewart": legs, "stewart_dae": dae,
                       "evaluations": args.evaluations, "repeat": args.repeat}, f, indent=2)


if __name__ == "__main__":
    main()
