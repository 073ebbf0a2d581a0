#!/bin/sh
# Builds the Debian package and a portable tarball of the same files from the two
# programs `make app` builds (make package runs this):
#   build/linux/package.sh BIN WINDOW VERSION OUTDIR
# The package holds /usr/bin/plugboard (every command), /usr/lib/plugboard/plugboard-window
# (the window, which plugboard with no command hands over to), the desktop entry, icons at the hicolor sizes, an AppStream metainfo file (validated), the manual
# pages (one per command) and bash/zsh/fish completions, made by the program itself from its
# own command table. Runtime dependencies: GTK 3 and WebKitGTK 4.1 (the window), libc.
set -eu
bin=$1 window=$2 version=$3 out=$4
here=$(cd "$(dirname "$0")" && pwd)
id=org.plugboard.Plugboard

# Debian versions start with a digit: v1.2.3-4-gabc -> 1.2.3.4.gabc; a bare commit -> 0.0.0+git.<commit>
debver=$(printf '%s' "$version" | sed -E 's/^v//; /^[0-9]/!s/^/0.0.0+git./; s/-/./g')
arch=$(dpkg --print-architecture)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/root
install -Dm755 "$bin" "$root/usr/bin/plugboard"
install -Dm755 "$window" "$root/usr/lib/plugboard/plugboard-window"
sed 's|^Exec=.*|Exec=/usr/bin/plugboard|' "$here/plugboard.desktop" > "$stage/$id.desktop"
install -Dm644 "$stage/$id.desktop" "$root/usr/share/applications/$id.desktop"
desktop-file-validate "$root/usr/share/applications/$id.desktop"
for size in 16 24 32 48 64 128 256 512; do
  mkdir -p "$root/usr/share/icons/hicolor/${size}x${size}/apps"
  convert "$here/../appicon.png" -resize "${size}x${size}" "$root/usr/share/icons/hicolor/${size}x${size}/apps/plugboard.png"
done
install -Dm644 "$here/$id.metainfo.xml" "$root/usr/share/metainfo/$id.metainfo.xml"
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net "$root/usr/share/metainfo/$id.metainfo.xml"
fi
mkdir -p "$root/usr/share/man/man1"
"$bin" man --dir "$root/usr/share/man/man1" >/dev/null
gzip -9n "$root/usr/share/man/man1/"*.1
install -d "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" "$root/usr/share/fish/vendor_completions.d"
"$bin" completion bash > "$root/usr/share/bash-completion/completions/plugboard"
"$bin" completion zsh > "$root/usr/share/zsh/vendor-completions/_plugboard"
"$bin" completion fish > "$root/usr/share/fish/vendor_completions.d/plugboard.fish"
chmod 644 "$root/usr/share/bash-completion/completions/plugboard" "$root/usr/share/zsh/vendor-completions/_plugboard" \
  "$root/usr/share/fish/vendor_completions.d/plugboard.fish"

mkdir -p "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: plugboard
Version: $debver
Architecture: $arch
Maintainer: The Plugboard authors <plugboard@localhost>
Installed-Size: $size
Depends: libc6, libgtk-3-0, libwebkit2gtk-4.1-0
Recommends: git
Suggests: fonts-noto-cjk | fonts-wqy-microhei
Section: devel
Priority: optional
Description: one honest catalog of the agent skills and plugins on this machine
 Plugboard finds Agent Plugins 1.0 packages, legacy Claude plugins, Cursor
 Marketplace plugins and standalone skills, validates each against its
 specification, assigns plugin sets to agents and launches Claude Code or PI
 from private projections of them. A desktop app with a tray icon, and a
 command line for plugin authors' CI.
CONTROL

mkdir -p "$out"
deb="$out/plugboard_${debver}_${arch}.deb"
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
tar="$out/plugboard-${debver}-linux-${arch}.tar.gz"
tar -C "$root" --owner=0 --group=0 --exclude=./DEBIAN -czf "$tar" .
echo "$deb"
echo "$tar"
