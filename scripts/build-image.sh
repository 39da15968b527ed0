#!/usr/bin/env bash
# build-image.sh: the dbperf container image of deploy/Containerfile (docs/scale-out.md), built
# offline: the static CGO_ENABLED=0 binary of this checkout in a FROM scratch image, which needs
# no registry and no base image. The builder is buildah (daemonless; Debian's `buildah`
# package), else podman, else docker. buildah runs with the vfs storage driver and chroot
# isolation, so it needs neither a daemon nor overlay mounts (it does need root), and
# --timestamp 0, so the same binary always makes the same image digest.
#
# Usage: scripts/build-image.sh [TAG]      (default localhost/dbperf:COMMIT12)
# Then:  buildah push TAG docker://REGISTRY/dbperf:TAG   (or podman push, docker push)
#
# It prints the binary's --version as run inside the image, the image's size and its digest.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tag=${1:-localhost/dbperf:$(git rev-parse --short=12 HEAD)}
ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT

CGO_ENABLED=0 nice -n 19 go build -trimpath -buildvcs=auto -o "$ctx/dbperf" ./cmd/dbperf
cp deploy/Containerfile "$ctx/"

if command -v buildah >/dev/null; then
	b=(buildah --storage-driver "${STORAGE_DRIVER:-vfs}")
	nice -n 19 "${b[@]}" bud --isolation chroot --timestamp 0 -f "$ctx/Containerfile" -t "$tag" "$ctx"
	c=$("${b[@]}" from "$tag")
	trap 'rm -rf "$ctx"; "${b[@]}" rm "$c" >/dev/null' EXIT
	echo "in the image: $("${b[@]}" run --isolation chroot "$c" /dbperf --version)"
	"${b[@]}" images --digests --format 'image {{.Name}}:{{.Tag}}  id {{.ID}}  digest {{.Digest}}  size {{.Size}}' "$tag"
elif command -v podman >/dev/null || command -v docker >/dev/null; then
	e=$(command -v podman || command -v docker)
	nice -n 19 "$e" build -f "$ctx/Containerfile" -t "$tag" "$ctx"
	echo "in the image: $("$e" run --rm "$tag" --version)"
	"$e" image inspect --format 'image {{.Id}}  digests {{.RepoDigests}}  size {{.Size}} bytes' "$tag"
else
	echo "no image builder: install buildah (apt-get install buildah), podman or docker" >&2
	exit 1
fi
