#!/bin/sh
# SPDX-License-Identifier: MIT
# check-clean-install.sh [--no-recommends] [--keep] [--root DIR] [--out DIR] PACKAGE.deb
#
# Installs the .deb from `cpack -G DEB` on a clean Debian 12 and checks that it works there:
# debootstraps a minimal bookworm (main, bookworm-updates and bookworm-security, as the
# installer sets up) into a folder, runs `apt-get install ./pe-explorer_*.deb` in it with chroot,
# then runs the programs (the CLI, the lab module, the window under Xvfb, in English and
# Chinese), looks for the menu entry and its icon where menus look, validates the installed
# .desktop and AppStream files and renders the man pages. Prints the package's size, its
# dependencies and what apt installed; writes the screenshots to --out to look at.
#
# Needs root (debootstrap, chroot, mount), debootstrap, and http access to deb.debian.org; not
# part of the CI tests for that reason. About 1.2 GB of disk in the root and 3 minutes, most of
# it apt; the debootstrapped base is kept as a tarball in ${XDG_CACHE_HOME:-~/.cache}/pe-explorer
# so that the next run starts from it.
#   --no-recommends  install with --no-install-recommends (the package's Depends alone)
#   --keep           leave the root in place afterwards (e.g. to chroot in and look)
#   --root DIR       the root's folder (default: a new folder under ${TMPDIR:-/var/tmp})
#   --out DIR        where the screenshots go (default: clean-install/ beside the .deb)
set -eu

mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
security=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
recommends=yes
keep=no
root=
out=
while [ $# -gt 0 ]; do
    case $1 in
    --no-recommends) recommends=no ;;
    --keep) keep=yes ;;
    --root) root=$2; shift ;;
    --out) out=$2; shift ;;
    -h | --help) sed -n '3,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-clean-install.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
[ $# -eq 1 ] || { echo "usage: check-clean-install.sh [options] PACKAGE.deb (--help)" >&2; exit 2; }
deb=$(realpath "$1")
[ -f "$deb" ] || { echo "check-clean-install.sh: no such file: $1" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "check-clean-install.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "apt-get install debootstrap first" >&2; exit 2; }
[ -n "$out" ] || out=$(dirname "$deb")/clean-install
mkdir -p "$out"
out=$(realpath "$out")
if [ -z "$root" ]; then
    root=$(mktemp -d "${TMPDIR:-/var/tmp}/pe-explorer-clean-root.XXXXXX")
elif [ -e "$root" ] && [ -n "$(ls -A "$root")" ]; then
    echo "check-clean-install.sh: $root is not empty; give a new folder" >&2
    exit 2
fi
mkdir -p "$root"
root=$(realpath "$root")
cache=${XDG_CACHE_HOME:-$HOME/.cache}/pe-explorer
base=$cache/debian12-minbase.tar

cleanup() {
    if mountpoint -q "$root/proc"; then umount "$root/proc"; fi
    if [ "$keep" = no ] && ! mountpoint -q "$root/proc"; then
        rm -rf --one-file-system "$root"
    else
        echo "the root stays in $root (umount $root/proc if mounted; rm -rf it when done)"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

failures=0
pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
# inroot COMMAND-LINE: runs a shell command line inside the root, in /tmp, with a plain environment.
inroot() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
       /bin/sh -c "cd /tmp && $*"; }

echo "== the root: $root"
if [ -f "$base" ]; then
    tar -C "$root" -xf "$base"
else
    echo "debootstrap of a minimal bookworm (its log: $out/debootstrap.log)"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
        { tail -5 "$out/debootstrap.log"; exit 1; }
    cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
    mkdir -p "$cache"
    tar -C "$root" -cf "$base.part" . && mv "$base.part" "$base"
fi
mount -t proc proc "$root/proc"
cp "$deb" "$root/tmp/"
name=$(basename "$deb")
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's/^\.//')

echo "== apt-get install ./$name (recommends: $recommends)"
inroot apt-get update -q >/dev/null
flags=
[ "$recommends" = yes ] || flags=--no-install-recommends
if inroot DEBIAN_FRONTEND=noninteractive apt-get install -y $flags "./$name" >"$out/apt.log" 2>&1; then
    pass "apt-get install ./$name"
else
    tail -20 "$out/apt.log"
    fail "apt-get install ./$name (the log: $out/apt.log)"
    exit 1
fi
grep -E 'newly installed|additional disk space' "$out/apt.log" | sed 's/^/      /'

echo "== the command-line tool"
# shellcheck disable=SC2016 # the command lines below expand inside the root
check() { # check DESCRIPTION COMMAND-LINE: passes when the command line exits 0 in the root.
    what=$1
    shift
    if inroot "$@" >"$out/last.log" 2>&1; then pass "$what"; else tail -5 "$out/last.log"; fail "$what"; fi
}
check "pe-explorer-cli --help" 'pe-explorer-cli --help | grep -q "Subcommands:"'
check "pe-explorer-cli --version" 'pe-explorer-cli --version | grep -q "^pe-explorer-cli [0-9]"'
check "trace (CPU): 9 tensors + manifest.json" \
    'pe-explorer-cli trace --scheme rope --n 16 --out trace && test -s trace/manifest.json &&
     test "$(ls trace/*.npy | wc -l)" -ge 9'
check "trace --backend gl (Mesa through EGL)" \
    'pe-explorer-cli trace --scheme alibi --backend gl --out trace-gl &&
     grep -q "\"backend\": \"gl\"" trace-gl/manifest.json'
check "render: PNG figures without a display" \
    'pe-explorer-cli render --scheme t5 --n 32 --out render 2>/dev/null && ls render/*.png >/dev/null'
check "insight offset" 'pe-explorer-cli insight offset --out insight && test -s insight/M.npy'
if printf '%s\n' "$contents" | grep -q 'libpe-lab-torch\.so$'; then
    check "train (the lab module libpe-lab-torch.so loads)" \
        'pe-explorer-cli train --task shift-3 --scheme rope --steps 20 --train-len 16 \
             --eval-samples 32 --quiet --out run && test -s run/model.safetensors &&
         grep -q "\"eval\"" run/run.json'
else
    echo "SKIP  train: the package has no lab module (built without libtorch-dev)"
fi
check "pe-explorer --version without a display" 'pe-explorer --version | grep -q "^pe-explorer [0-9]"'

echo "== the window, under Xvfb"
# The tools the remaining checks need, installed only now so that the checks above ran on the
# package's own dependencies (Xvfb brings X libraries of its own).
inroot DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    xvfb xauth desktop-file-utils appstream man-db >"$out/apt-tools.log" 2>&1 ||
    { tail -5 "$out/apt-tools.log"; fail "apt-get install the checking tools"; }
check "screenshot, encoding tab (English)" \
    'xvfb-run -a pe-explorer --screenshot en.png --tab 0 && test -s en.png'
# The CJK font is only recommended: without one the Chinese interface draws boxes.
if ! inroot 'fc-list :lang=zh-cn | grep -q .'; then
    echo "NOTE  no font covers Chinese (fonts-wqy-microhei | fonts-noto-cjk are recommended):"
    echo "      the Chinese screenshot shows boxes in place of the characters"
fi
check "screenshot, lab tab (Chinese)" \
    'xvfb-run -a pe-explorer --screenshot zh_CN.png --tab 6 --language zh_CN && test -s zh_CN.png'
cp "$root/tmp/en.png" "$root/tmp/zh_CN.png" "$out/" 2>/dev/null || true

echo "== the desktop menu, AppStream, man pages"
desktop=$(printf '%s\n' "$contents" | grep 'share/applications/.*\.desktop$' || true)
metainfo=$(printf '%s\n' "$contents" | grep 'share/metainfo/.*\.xml$' || true)
if [ -n "$desktop" ] && [ -f "$root$desktop" ]; then
    pass "menu entry $desktop"
    icon=$(sed -n 's/^Icon=//p' "$root$desktop")
    found=$(cd "$root" && find usr/share/icons/hicolor -path "*/apps/$icon.*" | head -1)
    if [ -n "$found" ]; then pass "icon $icon: /$found"; else fail "icon $icon in the hicolor theme"; fi
    # GTK menus read the theme's cache when there is one; it must list the icon.
    cache_file=$root/usr/share/icons/hicolor/icon-theme.cache
    if [ -f "$cache_file" ]; then
        if grep -q -a "$icon" "$cache_file"; then pass "hicolor icon-theme.cache lists $icon"
        else fail "hicolor icon-theme.cache lacks $icon (a stale cache)"; fi
    fi
    check "desktop-file-validate $desktop" "desktop-file-validate $desktop"
    check "Exec= runs: $(sed -n 's/^Exec=//p' "$root$desktop")" \
        "command -v $(sed -n 's/^Exec=\([^ ]*\).*/\1/p' "$root$desktop")"
else
    fail "no .desktop file in share/applications"
fi
if [ -n "$metainfo" ]; then
    check "appstreamcli validate $metainfo" "appstreamcli validate --no-net $metainfo"
else
    fail "no AppStream metainfo in share/metainfo"
fi
for page in pe-explorer pe-explorer-cli; do
    check "man $page" "MANWIDTH=80 man --warnings $page 2>&1 >/dev/null | (! grep .) &&
                       MANWIDTH=80 man $page | grep -q NAME"
done

rm -f "$out/last.log"
echo "== the package"
echo "file:           $name, $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" Installed-Size Depends Recommends | sed 's/^/  /'
echo "screenshots:    $out/en.png $out/zh_CN.png (look at them)"
if [ $failures -eq 0 ]; then
    echo "all checks passed"
else
    echo "$failures check(s) failed"
    exit 1
fi
