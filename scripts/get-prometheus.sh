#!/usr/bin/env bash
# Fetch Debian's prometheus package (server + promtool, 2.42) into .tools/prometheus/ without
# installing anything system-wide. Idempotent: does nothing when the binaries are already there.
# Prints the directory holding the binaries on success.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="${ROOT}/.tools/prometheus"
BIN="${DEST}/usr/bin"

if [[ -x "${BIN}/prometheus" && -x "${BIN}/promtool" ]]; then
  echo "${BIN}"
  exit 0
fi

for tool in apt-get dpkg-deb; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    echo "get-prometheus: ${tool} not found" >&2
    exit 1
  fi
done

WORK="$(mktemp -d)"
trap 'rm -rf "${WORK}"' EXIT

download() { (cd "${WORK}" && apt-get download prometheus >/dev/null 2>&1); }

if ! download; then
  # The package lists may be missing or outdated; refresh them once and retry.
  apt-get update >/dev/null 2>&1 || true
  if ! download; then
    echo "get-prometheus: 'apt-get download prometheus' failed" >&2
    exit 1
  fi
fi

DEB="$(ls "${WORK}"/prometheus_*.deb | head -n 1)"
mkdir -p "${DEST}.tmp"
dpkg-deb -x "${DEB}" "${DEST}.tmp"
rm -rf "${DEST}"
mv "${DEST}.tmp" "${DEST}"

if [[ ! -x "${BIN}/prometheus" || ! -x "${BIN}/promtool" ]]; then
  echo "get-prometheus: binaries missing after extraction" >&2
  exit 1
fi
echo "${BIN}"
