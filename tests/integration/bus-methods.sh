# SPDX-License-Identifier: GPL-2.0-or-later
# The agent's D-Bus methods, for the tests that hold every method that changes something to
# its access check, so that a method added to a vtable is checked without anyone adding it
# to a list:
#   agent-polkit-actions.test  the vtables in the source; the running agent without polkit
#   agent-polkit.test          the running agent with a real polkitd
# bus_vtable_methods needs only perl; the rest is sourced after lib.sh (a private bus, an
# agent on it, as_nobody).

# bus_vtable_methods SRCDIR: "INTERFACE MEMBER FLAG FILE HANDLER" for every SD_BUS_METHOD of
# every vtable in SRCDIR/smcd-agent/bus-*.c, the interface from the vtable's registration
# and the member from common/bus-api.h ("?..." where either cannot be resolved).
bus_vtable_methods() {
	perl -e '
	my %def;
	open(my $h, "<", "$ARGV[0]/common/bus-api.h") or die "bus-api.h: $!";
	while (<$h>) { $def{$1} = $2 if /^#define\s+(\w+)\s+(.*?)\s*(\/\*.*)?$/; }
	sub resolve {
		my ($expr, $depth) = @_;
		return undef if $depth > 8;
		my $out = "";
		while ($expr =~ /\G\s*(?:"([^"]*)"|(\w+))/gc) {
			if (defined $1) { $out .= $1; next; }
			my $v = exists $def{$2} ? resolve($def{$2}, $depth + 1) : undef;
			return undef unless defined $v;
			$out .= $v;
		}
		return $out;
	}
	for my $file (glob("$ARGV[0]/smcd-agent/bus-*.c")) {
		local $/;
		open(my $f, "<", $file) or die "$file: $!";
		my $src = <$f>;
		(my $name = $file) =~ s|.*/||;
		my %iface;
		while ($src =~ /sd_bus_add_(?:object|fallback)_vtable\(([^;]*?)\)\s*;/gs) {
			my @a = map { s/^\s+|\s+$//gr } split(/,/, $1);
			$iface{$a[4]} = $a[3];
		}
		while ($src =~ /static const sd_bus_vtable (\w+)\[\] = \{(.*?)\n\};/gs) {
			my ($vt, $body) = ($1, $2);
			my $if = defined $iface{$vt} ? resolve($iface{$vt}, 0) : undef;
			$if //= "?unregistered:$vt";
			while ($body =~ /SD_BUS_METHOD(?:_WITH_ARGS)?\(/g) {
				my ($start, $d, $i) = (pos($body), 1, pos($body));
				while ($d > 0 && $i < length($body)) {
					my $c = substr($body, $i++, 1);
					$d++ if $c eq "("; $d-- if $c eq ")";
				}
				my $args = substr($body, $start, $i - $start - 1);
				my @top; my ($cur, $dd) = ("", 0);
				for my $c (split(//, $args)) {
					if ($c eq "," && $dd == 0) { push @top, $cur; $cur = ""; next; }
					$dd++ if $c eq "("; $dd-- if $c eq ")";
					$cur .= $c;
				}
				push @top, $cur;
				s/^\s+|\s+$//g for @top;
				my $member = resolve($top[0], 0) // "?$top[0]";
				print "$if $member $top[-1] $name $top[3]\n";
			}
		}
	}' "$1"
}

# The methods anyone may call, and why each changes nothing (review before adding one):
#   Refresh          a poll now (rate-limited by the manager), no setting changes
#   DescribeConfig   the applied configuration, read-only
#   PlanConfig       a dry run; checks root/admin-group itself (its text may name files)
#   PlanConfigWithDropIns  the same with the texts of FILE.d the caller read
#   GetStatistics    counters, read-only
#   GetAssessment    the last assessment window, read-only (the shapes ss shows anyone)
#   GetWorkloads, Explain  the autopilot's table and one workload's evidence, read-only
#                    (the same shapes, per workload)
# Every other method of the agent changes something and must ask bus_authorize().
BUS_ANYONE_REVIEWED="$SMCD_BUS_IFACE_ASSESSMENT GetAssessment
$SMCD_BUS_IFACE_AUTOPILOT Explain
$SMCD_BUS_IFACE_AUTOPILOT GetWorkloads
$SMCD_BUS_IFACE_MANAGER DescribeConfig
$SMCD_BUS_IFACE_MANAGER PlanConfig
$SMCD_BUS_IFACE_MANAGER PlanConfigWithDropIns
$SMCD_BUS_IFACE_MANAGER Refresh
$SMCD_BUS_IFACE_STATS GetStatistics"

# bus_served_methods: "PATH INTERFACE MEMBER SIGNATURE" (the in-arguments; "-": none) for
# every method of an org.smcd interface on every object the running agent serves, as
# introspection shows them: the vtables as built and registered.
bus_served_methods() {
	local path
	for path in $(busctl tree --list $SMCD_BUS_NAME); do
		busctl introspect --xml-interface $SMCD_BUS_NAME "$path" |
			P=$path perl -0ne '
			while (/<interface name="(org\.smcd\.[^"]+)">(.*?)<\/interface>/gs) {
				my ($if, $body) = ($1, $2);
				while ($body =~ /<method name="([^"]+)"\s*(?:\/>|>(.*?)<\/method>)/gs) {
					my ($m, $mb) = ($1, $2 // "");
					my $sig = join("", $mb =~ /<arg type="([^"]+)"[^>]*direction="in"/g);
					print "$ENV{P} $if $m ", ($sig eq "" ? "-" : $sig), "\n";
				}
			}'
	done
}

# bus_mutating_methods: bus_served_methods without the reviewed ANYONE methods: every
# method a caller can reach that must ask polkit.
bus_mutating_methods() {
	local path iface member sig
	bus_served_methods | while read -r path iface member sig; do
		case $'\n'"$BUS_ANYONE_REVIEWED"$'\n' in
		*$'\n'"$iface $member"$'\n'*) continue ;;
		esac
		echo "$path $iface $member $sig"
	done
}

# bus_method_args INTERFACE MEMBER SIGNATURE: dbus-send arguments, one per line, that the
# method's handler accepts as far as it checks them before it asks polkit (a refusal of
# bad arguments would come before the question and prove nothing); status 1 when this
# table does not know the method (add it: the tests fail until then).
bus_method_args() {
	case "$1 $2" in
	"$SMCD_BUS_IFACE_MANAGER AddUeid" | "$SMCD_BUS_IFACE_MANAGER RemoveUeid")
		echo string:SMCD-BUS-METHODS-TEST ;;
	"$SMCD_BUS_IFACE_MANAGER SetSysctl") printf '%s\n' string:autocorking_size string:16KiB ;;
	"$SMCD_BUS_IFACE_MANAGER SetHandshakeLimitation" | "$SMCD_BUS_IFACE_MANAGER SetSeid")
		echo boolean:true ;;
	"$SMCD_BUS_IFACE_MANAGER AddPnet") printf '%s\n' string:NETTEST string:eth0 string: byte:0 ;;
	"$SMCD_BUS_IFACE_MANAGER RemovePnet") echo string:NETTEST ;;
	"$SMCD_BUS_IFACE_MANAGER EnableUnit")
		printf '%s\n' string:bus-methods-test.service string:/system.slice/bus-methods-test.service ;;
	"$SMCD_BUS_IFACE_MANAGER DisableUnit") echo string:bus-methods-test.service ;;
	"$SMCD_BUS_IFACE_LOOPBACK Deactivate") echo uint32:1 ;;
	"$SMCD_BUS_IFACE_LOOPBACK Set") printf '%s\n' string:nocopy string:on ;;
	"$SMCD_BUS_IFACE_AUTOPILOT Freeze") printf '%s\n' string:bus-methods-test.service boolean:true ;;
	"$SMCD_BUS_IFACE_AUTOPILOT Forget") echo string:bus-methods-test.service ;;
	*) [ "$3" = - ] ;;
	esac
}

# bus_method_call WHO PATH INTERFACE MEMBER SIGNATURE: the method called by WHO (as_nobody,
# or a function of the test that runs its arguments as another user) with
# bus_method_args'; prints the answer: dbus-send's reply, or the error as
# "...org.freedesktop.DBus.Error.NAME: MESSAGE".  EnrollProcess takes a pidfd, which
# dbus-send and busctl cannot send: tests/tools/bus-enroll does, with a pidfd of
# $BUS_ENROLL_TARGET (a process of root's: someone else's for any other caller).
# Status 2, saying so, when no arguments are known.
bus_method_call() {
	local who=$1 path=$2 iface=$3 member=$4 sig=$5 args
	if [ "$iface $member" = "$SMCD_BUS_IFACE_POLICY EnrollProcess" ]; then
		"$who" "$BUS_ENROLL" "${BUS_ENROLL_TARGET:?}" 2>&1
		return 0
	fi
	if ! args=$(bus_method_args "$iface" "$member" "$sig"); then
		echo "no arguments known for $iface.$member($sig): add them to bus_method_args in tests/integration/bus-methods.sh"
		return 2
	fi
	# shellcheck disable=SC2086 # one argument per line, none with a space
	"$who" dbus-send --system --print-reply --dest=$SMCD_BUS_NAME "$path" "$iface.$member" \
		$args 2>&1
}

# bus_methods_setup: bus-enroll where any user may run it ($BUS_ENROLL).
bus_methods_setup() {
	BUS_ENROLL=$T/bus-enroll
	cp "$top_builddir/tests/tools/bus-enroll" "$BUS_ENROLL" && chmod 755 "$BUS_ENROLL"
}

# bus_agent_state KERNEL_DIR CONFIG: what a change through the agent could touch: the fake
# kernel's files (content and modification time), the configuration file and its
# drop-ins, the statistics' reset time and the configuration's load and reconcile times.
bus_agent_state() {
	local f
	for f in $(find "$1" "$2" "$2.d" -type f 2>/dev/null | sort); do
		echo "$f $(stat -c %y "$f") $(md5sum <"$f")"
	done
	busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_STATS ResetUSec
	busctl get-property $SMCD_BUS_NAME $SMCD_BUS_PATH $SMCD_BUS_IFACE_MANAGER \
		ConfigLoadedUSec ConfigRevision LastReconcile
}
