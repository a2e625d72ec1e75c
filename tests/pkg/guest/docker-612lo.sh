#!/bin/sh
# lanes: 612lo
#
# smc.yaml(5)'s recipe for every container of docker (docker.io from Debian 12, the systemd
# cgroup driver), on the kernel with SMC-D loopback with the installed package: docker's
# containers in a slice of their own ("cgroup-parent": "docker.slice" in daemon.json) and
# that slice switched (smcctl enable docker.slice, a drop-in with /docker.slice): two
# containers on docker's default bridge talk SMC-D; a container given another parent, and a
# system service, stay TCP (the slice is not /system.slice, which would switch every
# service).  The image is made offline (smc-conn and its libraries, docker import).  Run
# by tests/pkg/systemd-lane --lane 612lo --docker --tool smc-conn.  Then the per-container way:
# the package's runtime wrapper smc-runc registered in daemon.json, docker run --runtime smc
# (the block "smc-runc" at the end).
. "$(dirname "$0")/lib.sh"
require_cmd docker smcctl smc-conn jq nsenter systemd-run
U=smcd-agent

info "boot: $SMCD_VM_BOOT_STATE after $(cut -d' ' -f1 /proc/uptime)s; kernel $SMCD_VM_KERNEL"
wait_until 120 "$U.service active" systemctl is-active --quiet $U
# The recipe: docker's own slice.
printf '{"storage-driver": "vfs", "cgroup-parent": "docker.slice"}\n' >/etc/docker/daemon.json
assert_ok systemctl restart docker
wait_until 120 "docker.service active" systemctl is-active --quiet docker
assert_ok smcctl enable docker.slice
assert_contains "$(smcctl policy)" "/docker.slice" "smcctl policy lists docker's slice"

img=/tmp/smc-image
mkdir -p $img/bin
cp /usr/local/bin/smc-conn $img/bin/
for lib in $(ldd /usr/local/bin/smc-conn | grep -o '/[^ ]*'); do
	mkdir -p "$img$(dirname "$lib")"
	cp -L "$lib" "$img$lib"
done
tar -C $img -c . | docker import - smc-conn >/tmp/import.out 2>&1 ||
	fail "docker import: $(cat /tmp/import.out)"

# srv NAME [ARGS...]: a detached server, listening on 5000 when this returns its address.
srv() {
	name=$1
	shift
	docker run -d --name "$name" "$@" smc-conn /bin/smc-conn serve --proto tcp --addr 0.0.0.0 \
		--port 5000 >/tmp/$name.id 2>&1 || fail "docker run $name: $(cat /tmp/$name.id)"
	pid=$(docker inspect -f '{{.State.Pid}}' "$name")
	wait_until 60 "$name listens" sh -c "nsenter -t $pid -n cat /proc/net/tcp | grep -q ':1388 [0-9A-F:]* 0A'"
	docker inspect -f '{{.NetworkSettings.IPAddress}}' "$name"
}
cli() {
	name=$1 addr=$2
	shift 2
	docker run --name "$name" "$@" smc-conn /bin/smc-conn connect --proto tcp --addr "$addr" \
		--port 5000 --conns 2 --bytes 65536 >/tmp/$name.out 2>&1 ||
		fail "docker run $name: $(cat /tmp/$name.out)"
	grep '"summary"' /tmp/$name.out
}

ip=$(srv smc-srv | tail -n 1)
assert_match "$ip" '^[0-9.]+$' "smc-srv's address on docker's bridge"
cg=$(sed -n 's/^0:://p' "/proc/$(docker inspect -f '{{.State.Pid}}' smc-srv)/cgroup")
assert_match "$cg" '^/docker\.slice/docker-[0-9a-f]+\.scope' "the server's scope is below docker.slice"
sum=$(cli smc-cli "$ip")
assert_eq 2 "$(echo "$sum" | jq .smcd)" "two containers of docker.slice: SMC-D ($sum)"

# Another parent: not switched.
ip2=$(srv tcp-srv --cgroup-parent other.slice | tail -n 1)
sum=$(cli tcp-cli "$ip2" --cgroup-parent other.slice)
assert_eq 2 "$(echo "$sum" | jq .tcp)" "containers of another slice: TCP ($sum)"

# A system service: not switched (the recipe is not /system.slice).
out=$(systemd-run --wait --pipe --quiet --unit smc-svc /usr/local/bin/smc-conn pair --proto tcp \
	--port 5099 --conns 1 2>&1)
assert_eq 1 "$(printf '%s\n' "$out" | grep '"summary"' | jq .tcp)" "a service of system.slice: TCP ($out)"

# >>> identity (issue 39): smcctl socket -p names a container, not its scope >>>>>>>>>>>>>>>>>
# A client holds its connection to smc-srv open (--hold); while the two talk, smcctl socket -p
# in each one's network namespace (smc_diag lists a namespace's own sockets) names its
# holder docker:NAME, never docker-<id>.scope, and -j has the holder's "container" object
# from docker's config.v2.json.
docker run -d --name smc-hold smc-conn /bin/smc-conn connect --proto tcp --addr "$ip" \
	--port 5000 --conns 1 --bytes 65536 --hold 300 >/tmp/smc-hold.id 2>&1 ||
	fail "docker run smc-hold: $(cat /tmp/smc-hold.id)"
srv_pid=$(docker inspect -f '{{.State.Pid}}' smc-srv)
hold_pid=$(docker inspect -f '{{.State.Pid}}' smc-hold)
wait_until 60 "smc-hold's connection is open" sh -c \
	"smcctl -n /proc/$hold_pid/ns/net socket -p | grep -q 'docker:smc-hold'"
out=$(smcctl -n /proc/$srv_pid/ns/net socket -p)
assert_contains "$out" "docker:smc-srv" "smcctl socket -p names the server container ($out)"
assert_not_contains "$out" ".scope" "... never by its scope"
c=$(smcctl -n /proc/$srv_pid/ns/net -j socket -p |
	jq -c '[.sockets[].processes[].container | select(. != null)][0]')
assert_eq "smc-srv" "$(echo "$c" | jq -r .name)" "-j: the server's container object ($c)"
assert_eq "docker" "$(echo "$c" | jq -r .runtime)" "... its runtime"
assert_eq "$(docker inspect -f '{{.Id}}' smc-srv | cut -c1-12)" "$(echo "$c" | jq -r .id)" \
	"... its short id"
assert_match "$(echo "$c" | jq -r .image)" "smc-conn" "... its image"
assert_ok docker rm -f smc-hold
# <<< identity (issue 39) <<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<

assert_ok docker rm -f smc-srv smc-cli tcp-srv tcp-cli

# === smc-runc: one container of docker, docker run --runtime smc (issue 39) ===============
# The package's runtime wrapper registered in daemon.json, docker's default parent
# (/system.slice) and the slice recipe above undone: only --runtime smc opts a container in.
D=/etc/smc/smc.yaml.d
RUNC_WRAP=/usr/libexec/smcd-agent/smc-runc
assert_exists $RUNC_WRAP "the runtime wrapper the package installs"
assert_ok smcctl disable docker.slice
assert_not_contains "$(smcctl policy)" "/docker.slice" "the slice recipe undone"
printf '{"storage-driver": "vfs", "runtimes": {"smc": {"path": "%s"}}}\n' $RUNC_WRAP \
	>/etc/docker/daemon.json
assert_ok systemctl restart docker
wait_until 120 "docker.service active with the smc runtime" systemctl is-active --quiet docker
assert_contains "$(docker info -f '{{json .Runtimes}}')" '"smc"' "docker lists the smc runtime"
scope_of() { echo "/system.slice/docker-$(docker inspect -f '{{.Id}}' "$1").scope"; }

ip=$(srv rt-srv --runtime smc | tail -n 1)
assert_match "$ip" '^[0-9.]+$' "rt-srv's address on docker's bridge"
scope=$(scope_of rt-srv)
assert_eq "0::$scope" "$(cat "/proc/$(docker inspect -f '{{.State.Pid}}' rt-srv)/cgroup")" \
	"the server's own scope below /system.slice"
assert_exists "$D/50-unit-${scope##*/}.yaml" "the server's drop-in, written through smc-runc's hook"
assert_contains "$(smcctl policy)" "$scope" "smcctl policy lists the server's own scope"
sum=$(cli rt-cli "$ip" --runtime smc)
assert_eq 2 "$(echo "$sum" | jq .smcd)" "--runtime smc client to --runtime smc server: SMC-D ($sum)"
assert_eq 2 "$(echo "$sum" | jq .ok)" "... every byte verified"
assert_contains "$(journalctl -t smcctl -o cat)" "new sockets use SMC in docker-" \
	"the hook said what it did"

# Without --runtime smc: TCP, no policy.
ip2=$(srv rt-tcp-srv | tail -n 1)
assert_not_contains "$(smcctl policy)" "$(scope_of rt-tcp-srv)" "no policy for a container of runc"
sum=$(cli rt-tcp-cli "$ip2")
assert_eq 2 "$(echo "$sum" | jq .tcp)" "client and server without --runtime smc: TCP ($sum)"

# Host network with --runtime smc: refused, with the reason.
docker run --name rt-host --runtime smc --network host smc-conn /bin/smc-conn pair --proto tcp \
	--port 5098 --conns 1 >/tmp/rt-host.out 2>&1 ||
	fail "docker run --runtime smc --network host: $(cat /tmp/rt-host.out)"
sum=$(grep '"summary"' /tmp/rt-host.out)
assert_eq 1 "$(echo "$sum" | jq .tcp)" "a host-network container's sockets stay TCP ($sum)"
assert_not_contains "$(smcctl policy)" "$(scope_of rt-host)" "... no policy for its scope"
assert_contains "$(journalctl -t smcctl -o cat)" "stays on TCP: its network namespace is the host's (host network)" \
	"... and the journal says why"

# --- the agent killed and restarted while --runtime smc containers talk (issue 39) -------
agent_killed_while_talking docker rt-held smc-conn "$ip" --runtime smc

# Stopped: nothing left (poststop, at runc delete).
assert_ok docker rm -f rt-srv rt-cli rt-tcp-srv rt-tcp-cli rt-host
wait_until 60 "no docker drop-in left" sh -c "! ls $D | grep -q docker-"
assert_not_contains "$(smcctl policy)" "docker-" "no policy left"
# === end smc-runc ===========================================================================
