"""Inverse dynamics in actuated coordinates: microseconds per evaluation.

3-RRR by the recursive DeNOC formulation (femdyn.analysis.rrr) and the Stewart-Gough platform by
Gauss/Appell (femdyn.analysis.stewart), each along its smooth trajectory; then Gauss/Appell for
semi-regular platforms with more legs (least squares, one 6 x n solve), to show how the cost grows
with the number of legs.  Forward (3-RRR) and direct (Stewart) dynamics are timed alongside.  The DAE
servo-constraint path is not timed here.  Each figure is the best of --repeat passes over
--evaluations states.
Usage: python benchmarks/inverse_dynamics.py [--evaluations 200] [--repeat 3] [--legs 6 12 24 48 96 192] [--json FILE]
"""
import argparse
import json
import time
import warnings

import numpy as np

from femdyn.analysis import rrr, stewart


def best_time(function, states, repeat):
    """Best over ``repeat`` passes of the mean wall time of function(*state), in microseconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for state in states:
            function(*state)
        best = min(best, (time.perf_counter() - start) / len(states))
    return 1e6 * best


def rrr_figures(evaluations, repeat):
    params = rrr.RRRParameters(gravity=(0.0, -9.81))
    poses, twists, twist_dots = rrr.circle_trajectory(np.linspace(0.0, 1.5, evaluations))
    inverse = [(params, p, w, wd) for p, w, wd in zip(poses, twists, twist_dots)]
    forward = [(params, rrr.inverse_kinematics(params, p), rrr.actuated_rates(params, p, w),
                rrr.inverse_dynamics(params, p, w, wd), p) for p, w, wd in zip(poses, twists, twist_dots)]
    return {"inverse_us": best_time(rrr.inverse_dynamics, inverse, repeat),
            "forward_us": best_time(rrr.forward_dynamics, forward, repeat)}


def stewart_figures(n_legs, evaluations, repeat):
    params = stewart.StewartParameters(*stewart.stewart_geometry(n_legs))
    states = [stewart.platform_trajectory(params, t) for t in np.linspace(0.0, 1.5, evaluations)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # least squares for n != 6 is what is measured
        inverse = [(params, *s) for s in states]
        direct = [(params, *s[:3], stewart.inverse_dynamics(params, *s)) for s in states]
        inverse_us = best_time(stewart.inverse_dynamics, inverse, repeat)
    return {"legs": n_legs, "inverse_us": inverse_us, "direct_us": best_time(stewart.direct_dynamics, direct, repeat)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaluations", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--legs", type=int, nargs="+", default=[6, 12, 24, 48, 96, 192])
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args()
    three_rrr = rrr_figures(args.evaluations, args.repeat)
    legs = [stewart_figures(n, args.evaluations, args.repeat) for n in args.legs]
    print(f"3-RRR, recursive DeNOC:  inverse {three_rrr['inverse_us']:9.1f} us   forward {three_rrr['forward_us']:9.1f} us")
    print("Stewart-Gough, Gauss/Appell:")
    print(f"{'legs':>6} {'inverse us':>11} {'direct us':>10} {'us/leg':>8} {'x 6 legs':>9}")
    base = legs[0]["inverse_us"]
    for row in legs:
        print(f"{row['legs']:6d} {row['inverse_us']:11.1f} {row['direct_us']:10.1f} "
              f"{row['inverse_us'] / row['legs']:8.1f} {row['inverse_us'] / base:9.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rrr": three_rrr, "stewart": legs, "evaluations": args.evaluations, "repeat": args.repeat}, f, indent=2)


if __name__ == "__main__":
    main()
