# Sourced by the scripts that need Debian packages: install_missing LABEL PKG...
# installs those of PKG... that are not installed (with sudo when not root),
# non-interactively; prints "LABEL: installing ..." first, or nothing when all
# are there.
install_missing() {
  local label="$1"
  shift
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "$label: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
}
