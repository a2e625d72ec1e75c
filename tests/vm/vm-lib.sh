# shellcheck shell=bash
# Host-side helpers shared by the tests/vm scripts (sourced, never executed).
#
# Everything that must agree between build-kernel, fetch-kernel, mkinitramfs and vm-run
# lives here: the cache location, messages, and the private apt state used to fetch Debian
# packages from other suites without touching the system's apt configuration.

# Name used in messages; scripts set VM_PROG before sourcing.
: "${VM_PROG:=${0##*/}}"

vm_msg() { printf '%s: %s\n' "$VM_PROG" "$*" >&2; }
vm_warn() { printf '%s: warning: %s\n' "$VM_PROG" "$*" >&2; }
vm_die() { printf '%s: error: %s\n' "$VM_PROG" "$*" >&2; exit 1; }

# The cache holds kernels, downloaded packages, apt state and the KVM verdict.
vm_cache_dir() {
	local home=${HOME:-}
	[[ -n $home ]] || home=$(getent passwd "$(id -u)" | cut -d: -f6)
	printf '%s\n' "${SMCD_VM_CACHE:-${XDG_CACHE_HOME:-$home/.cache}/smcd-agent/vm}"
}

# vm_kernel_release ENTRY: the kernel release of a cache entry, alone on one line.  Entries
# written before build-kernel read include/config/kernel.release hold make's
# "Entering directory" lines too (MAKEFLAGS from an outer make leaked into `make -s
# kernelrelease`): those lines are dropped.
vm_kernel_release() {
	grep -v -e '^make' -e '^$' "$1/kernel.release" | head -n 1
}

# Seconds as "4m07s".
vm_duration() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# --- private apt state ---------------------------------------------------------------------
#
# The Debian mirror is taken from the system's own apt sources (so the harness uses whatever
# mirror this machine is set up with) unless SMCD_VM_DEBIAN_MIRROR /
# SMCD_VM_DEBIAN_SECURITY_MIRROR say otherwise. Only the URI is borrowed; suites, lists and
# caches are private to the cache directory, and the system's dpkg status is hidden
# (Dir::State::Status=/dev/null) so apt never wants to resolve against installed packages.

# Print "URI SUITE" pairs from the system's apt sources (one-line and deb822 formats).
vm_system_apt_uris() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		# deb [opts] URI SUITE COMPONENTS...
		sed -n -E 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([^[:space:]]+).*/\2 \3/p' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		awk '
			function flush() { if (uris != "" && types ~ /(^| )deb( |$)/) {
				n = split(uris, u, " "); m = split(suites, s, " ")
				for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) print u[i], s[j] }
				uris = ""; suites = ""; types = "" }
			/^[[:space:]]*$/ { flush(); next }
			/^#/ { next }
			tolower($1) == "types:" { $1 = ""; types = $0 }
			tolower($1) == "uris:" { $1 = ""; uris = $0 }
			tolower($1) == "suites:" { $1 = ""; suites = $0 }
			END { flush() }' "$f"
	done
}

# Echo the Debian archive URI (kind "main") or the security archive URI (kind "security").
vm_debian_mirror() {
	local kind=$1 uri suite
	if [[ $kind == main && -n ${SMCD_VM_DEBIAN_MIRROR:-} ]]; then
		printf '%s\n' "$SMCD_VM_DEBIAN_MIRROR"; return 0
	fi
	if [[ $kind == security && -n ${SMCD_VM_DEBIAN_SECURITY_MIRROR:-} ]]; then
		printf '%s\n' "$SMCD_VM_DEBIAN_SECURITY_MIRROR"; return 0
	fi
	while read -r uri suite; do
		uri=${uri%/}
		case $kind/$suite in
		security/*-security) [[ $uri == */debian-security ]] && { printf '%s\n' "$uri"; return 0; } ;;
		main/*-security | main/*-backports) ;;
		main/*) [[ $uri == */debian ]] && { printf '%s\n' "$uri"; return 0; } ;;
		esac
	done < <(vm_system_apt_uris)
	return 1
}

# vm_apt_init DIR SUITE... : create a private apt state in DIR for the given Debian suites
# ("*-security" suites go to the security archive) and run apt-get update.
VM_APT_OPTS=()
vm_apt_init() {
	local dir=$1 suite main sec keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	main=$(vm_debian_mirror main) ||
		vm_die "no Debian mirror found in /etc/apt/sources*; set SMCD_VM_DEBIAN_MIRROR"
	sec=$(vm_debian_mirror security) || sec=
	[[ -r $keyring ]] || vm_die "$keyring missing (package debian-archive-keyring)"
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	: >"$dir/sources.list.new"
	for suite in "$@"; do
		if [[ $suite == *-security ]]; then
			if [[ -z $sec ]]; then
				vm_warn "no debian-security mirror found; skipping suite $suite" \
					"(set SMCD_VM_DEBIAN_SECURITY_MIRROR)"
				continue
			fi
			echo "deb [signed-by=$keyring] $sec $suite main" >>"$dir/sources.list.new"
		else
			echo "deb [signed-by=$keyring] $main $suite main" >>"$dir/sources.list.new"
		fi
	done
	mv "$dir/sources.list.new" "$dir/sources.list"
	VM_APT_OPTS=(
		-o "Dir::Etc::SourceList=$dir/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists"
		-o "Dir::Cache=$dir/cache"
		-o Dir::State::Status=/dev/null
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts=/dev/null
		-o APT::Architecture=amd64
		-o APT::Architectures=amd64
		-o Acquire::Languages=none
		-o APT::Sandbox::User=root
	)
	vm_msg "apt-get update (private state in $dir: $*)"
	if ! apt-get -q "${VM_APT_OPTS[@]}" update >"$dir/update.log" 2>&1; then
		tail -n 20 "$dir/update.log" >&2
		vm_die "apt-get update failed (full log: $dir/update.log)"
	fi
	if grep -E '^(W|E):' "$dir/update.log" >&2; then
		vm_warn "apt-get update reported problems (see above)"
	fi
}

# Package names known to the private state that match an extended regex, newest version
# first (sort -V on the name).
vm_apt_names() {
	apt-cache "${VM_APT_OPTS[@]}" pkgnames 2>/dev/null | grep -E "$1" | sort -rV
}

vm_apt_version() {
	apt-cache "${VM_APT_OPTS[@]}" show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Version: //p' | head -n 1
}

# vm_apt_download PKG DESTDIR : download PKG's .deb into DESTDIR, print the file's path.
vm_apt_download() {
	local pkg=$1 dest=$2 deb
	mkdir -p "$dest"
	if ! (cd "$dest" && apt-get -q "${VM_APT_OPTS[@]}" download "$pkg") >"$dest/download.log" 2>&1; then
		tail -n 20 "$dest/download.log" >&2
		vm_die "apt-get download $pkg failed"
	fi
	deb=$(ls -t "$dest/${pkg}_"*.deb 2>/dev/null | head -n 1)
	[[ -n $deb ]] || vm_die "apt-get download $pkg produced no .deb in $dest"
	printf '%s\n' "$deb"
}
