#!/usr/bin/env bash
# Fetches the pinned Apache ECharts runtime through npm into the HTML
# report's embed directory (report/htmlreport/assets), with its licence.
# A no-op when the pinned version is already there. Fails soft: when npm or
# the registry is unreachable it warns and exits 0, and reports built
# without the asset load ECharts from a CDN instead (and say so).
#
# Usage: scripts/fetch-echarts.sh VERSION SHA256 DIR
set -uo pipefail
version=${1:?version}
sum=${2:?sha256 of dist/echarts.min.js}
dir=${3:?asset directory}

if [ -f "$dir/echarts.min.js" ] && [ "$(cat "$dir/echarts.version" 2>/dev/null)" = "$version" ]; then
	exit 0
fi
warn() { echo "fetch-echarts: $*; HTML reports will load ECharts from a CDN (they need the network)" >&2; exit 0; }
command -v npm >/dev/null || warn "npm not found"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && timeout 180 npm pack --loglevel=error "echarts@$version" >/dev/null 2>"$tmp/npm.log") ||
	warn "npm pack echarts@$version failed: $(grep -m1 -i error "$tmp/npm.log")"
tar -xzf "$tmp/echarts-$version.tgz" -C "$tmp" package/dist/echarts.min.js package/LICENSE package/NOTICE package/licenses ||
	warn "unexpected echarts@$version package layout"
got=$(sha256sum "$tmp/package/dist/echarts.min.js" | cut -d' ' -f1)
[ "$got" = "$sum" ] || warn "echarts.min.js sha256 $got, want $sum"
mkdir -p "$dir"
cp "$tmp/package/dist/echarts.min.js" "$dir/echarts.min.js.tmp" && mv "$dir/echarts.min.js.tmp" "$dir/echarts.min.js"
cp "$tmp/package/LICENSE" "$dir/ECHARTS-LICENSE"
cp "$tmp/package/NOTICE" "$dir/ECHARTS-NOTICE"
cp "$tmp/package/licenses/LICENSE-d3" "$dir/ECHARTS-LICENSE-d3" 2>/dev/null || true
echo "$version" > "$dir/echarts.version"
echo "fetch-echarts: echarts $version in $dir"
