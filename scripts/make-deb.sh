#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (purlin-dkms, purlinctl) with dpkg-buildpackage
# from a clean copy of the tracked sources; results in build/deb/ (or in
# PURLIN_DEB_OUT, which scripts/dkms-check.sh uses).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
version=$(cat "$top/VERSION")
out=${PURLIN_DEB_OUT:-$top/build/deb}
src=$out/purlin-$version

rm -rf "$out"
mkdir -p "$src"
(cd "$top" && git ls-files -z | xargs -0 tar cf -) | tar xf - -C "$src"
cat > "$src/debian/changelog" <<EOC
purlin ($version) unstable; urgency=medium

  * Release $version (see the git history).

 -- Purlin Developers <dev@purlin.io>  $(date -R)
EOC
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	exit 1
}
ls "$out"/*.deb
