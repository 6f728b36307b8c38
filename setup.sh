#!/usr/bin/env bash
# Prepare a development environment: what pip cannot install (the OpenGL libraries that VTK loads for
# femdyn view and the tests' screenshots, a venv), then femdyn[test] from wheels on the recorded stack
# (constraints.txt) and its compiled kernels (femdyn warm-up). femdyn itself needs no system library:
# SuiteSparse (KLU, CHOLMOD) comes with the kvxopt wheel.
set -euo pipefail
cd "$(dirname "$0")"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Another apt or dpkg process (a fresh Debian's automatic updates) may hold the package manager's lock:
# wait for it, up to LOCK_WAIT seconds, instead of failing. apt-get waits for dpkg's lock itself
# (DPkg::Lock::Timeout, apt >= 1.9.11); apt-get update's lock of the package lists it does not wait
# for, so a run refused for a lock is repeated every 5 s until the same deadline.
LOCK_WAIT=600
apt_get() {
    local deadline=$((SECONDS + LOCK_WAIT)) said="" err
    while true; do
        if { err="$($SUDO apt-get -o DPkg::Lock::Timeout="$LOCK_WAIT" "$@" 2>&1 1>&3)"; } 3>&1; then
            [ -z "$err" ] || echo "$err" >&2
            return 0
        fi
        if ! grep -qiE 'could not get lock|unable to lock|unable to acquire the dpkg' <<<"$err" \
                || [ "$SECONDS" -ge "$deadline" ]; then
            echo "$err" >&2
            return 1
        fi
        if [ -z "$said" ]; then
            echo "[setup] another process holds the package manager's lock: waiting up to $LOCK_WAIT s" >&2
            said=1
        fi
        sleep 5
    done
}

apt_install() {
    apt_get update -qq
    DEBIAN_FRONTEND=noninteractive apt_get install -y -qq "$@" >/dev/null
}

# VTK's wheel (pyvista) loads OpenGL at run time: EGL with Mesa's software driver renders off-screen
# (femdyn view --screenshot, tests); GL, X11 and Xcursor open windows (femdyn view).
GL_PACKAGES="libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 libglx-mesa0 libx11-6 libxcursor1"
missing=""
for package in $GL_PACKAGES; do
    [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing="$missing $package"
done
if [ -z "$missing" ]; then
    echo "[setup] OpenGL libraries present"
else
    echo "[setup] installing$missing"
    apt_install $missing
fi

if [ -x .venv/bin/python ]; then
    echo "[setup] .venv present"
else
    echo "[setup] creating .venv"
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
        apt_install python3-venv
    fi
    python3 -m venv .venv
fi

# The stamp records a successful install of this pyproject.toml and constraints.txt (their hash, so
# that a changed file triggers a reinstall whatever its modification time).
STAMP=.venv/.femdyn-installed
WANT="$(cat pyproject.toml constraints.txt | sha256sum | cut -d' ' -f1)"
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "[setup] femdyn[test] already installed"
else
    echo "[setup] installing femdyn[test] into .venv"
    # --no-compile: Python compiles a module's bytecode when it is first imported, not the 7000 modules of
    # the stack at install time (about 30 s of CPU, most of them never imported by femdyn or its tests)
    .venv/bin/pip install -q --disable-pip-version-check --no-compile --only-binary=:all: -c constraints.txt -e '.[test]'
    echo "$WANT" > "$STAMP"
fi

# numba compiles femdyn's kernels on their first call and keeps the machine code on disk
# (femdyn/numerics/compiled.py): femdyn warm-up compiles them here, once, so that a user's first run does
# not (about 30 s on a 2-core machine; a few seconds when the cache is already warm). A failure only warns.
echo "[setup] filling numba's cache with femdyn's compiled kernels"
.venv/bin/femdyn warm-up > /dev/null || echo "[setup] warning: femdyn warm-up failed (the kernels compile on first use)"
