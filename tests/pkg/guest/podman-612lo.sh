#!/bin/sh
# lanes: 612lo
#
# podman's containers and the package's OCI hook (smcctl oci-hook, issue 39), under systemd on
# the kernel with SMC-D loopback, with the installed package and its shipped smc.yaml:
# two containers annotated org.smcd.smc=true on podman's default bridge network talk SMC-D
# (their plain TCP sockets switched by the agent's policy on their own scopes); the same two
# without the annotation talk TCP; a host-network container with the annotation is refused
# with the reason in the journal; the enrollment survives an agent restart; stopped
# containers leave no drop-in and no policy behind.  The image is made offline from this
# rootfs: smc-conn (tests/tools, the lane's --tool) and the libraries it needs, podman
# import.  Run by tests/pkg/systemd-lane --lane 612lo --podman --tool smc-conn.
. "$(dirname "$0")/lib.sh"
require_cmd podman smcctl smc-conn jq journalctl nsenter
U=smcd-agent
ANN=org.smcd.smc=true
D=/etc/smc/smc.yaml.d

info "boot: $SMCD_VM_BOOT_STATE after $(cut -d' ' -f1 /proc/uptime)s; kernel $SMCD_VM_KERNEL"
wait_until 120 "$U.service active" systemctl is-active --quiet $U
assert_exists /usr/share/containers/oci/hooks.d/smcd-smc.json "the hook the package installs"

# The image: smc-conn and what ldd names, at the same paths.
img=/tmp/smc-image
mkdir -p $img/bin
cp /usr/local/bin/smc-conn $img/bin/
for lib in $(ldd /usr/local/bin/smc-conn | grep -o '/[^ ]*'); do
	mkdir -p "$img$(dirname "$lib")"
	cp -L "$lib" "$img$lib"
done
t0=$(cut -d' ' -f1 /proc/uptime)
tar -C $img -c . | podman import - localhost/smc-conn >/tmp/import.out 2>&1 ||
	fail "podman import: $(cat /tmp/import.out)"
info "podman import took $(echo "$(cut -d' ' -f1 /proc/uptime) $t0" | awk '{print $1 - $2}')s"

# srv NAME [ARGS...]: a server container, detached; waits until it listens on 5000.
srv() {
	name=$1
	shift
	podman run -d --name "$name" "$@" localhost/smc-conn /bin/smc-conn serve --proto tcp --addr 0.0.0.0 \
		--port 5000 >/tmp/$name.id 2>&1 || fail "podman run $name: $(cat /tmp/$name.id)"
	pid=$(podman inspect -f '{{.State.Pid}}' "$name")
	# port 5000 (1388) listening (0A) in its network namespace
	wait_until 60 "$name listens" sh -c "nsenter -t $pid -n cat /proc/net/tcp | grep -q ':1388 [0-9A-F:]* 0A'"
	podman inspect -f '{{.NetworkSettings.IPAddress}}' "$name"
}
# cli NAME ADDR [ARGS...]: a client container, its summary line on stdout.
cli() {
	name=$1 addr=$2
	shift 2
	podman run --name "$name" "$@" localhost/smc-conn /bin/smc-conn connect --proto tcp \
		--addr "$addr" --port 5000 --conns 2 --bytes 65536 >/tmp/$name.out 2>&1 ||
		fail "podman run $name: $(cat /tmp/$name.out)"
	grep '"summary"' /tmp/$name.out
}
scope_of() { echo "/machine.slice/libpod-$(podman inspect -f '{{.Id}}' "$1").scope"; }

# --- annotated: SMC-D --------------------------------------------------------------------
ip=$(srv smc-srv --annotation $ANN | tail -n 1)
assert_match "$ip" '^[0-9.]+$' "smc-srv's address on the bridge"
scope=$(scope_of smc-srv)
assert_exists "$D/50-unit-${scope##*/}.yaml" "the server's drop-in, written through the hook"
assert_contains "$(smcctl policy)" "$scope" "smcctl policy lists the server's own scope"
sum=$(cli smc-cli "$ip" --annotation $ANN)
assert_eq 2 "$(echo "$sum" | jq .smcd)" "annotated client to annotated server: SMC-D ($sum)"
assert_eq 2 "$(echo "$sum" | jq .ok)" "... every byte verified"
assert_contains "$(journalctl -t smcctl -o cat)" "new sockets use SMC in libpod-" \
	"the hook said what it did"

# --- the agent restarted: the enrollment stays ------------------------------------------
assert_ok systemctl restart $U
wait_until 120 "$U.service active again" systemctl is-active --quiet $U
assert_contains "$(smcctl policy)" "$scope" "a restarted agent keeps the server's scope"
sum=$(cli smc-cli2 "$ip" --annotation $ANN)
assert_eq 2 "$(echo "$sum" | jq .smcd)" "after the restart: SMC-D still ($sum)"

# --- the agent killed and restarted while containers talk (issue 39) ---------------------
agent_killed_while_talking podman smc-held localhost/smc-conn "$ip" --annotation $ANN

# --- not annotated: TCP -------------------------------------------------------------------
ip2=$(srv tcp-srv | tail -n 1)
assert_match "$ip2" '^[0-9.]+$' "tcp-srv's address on the bridge"
assert_not_contains "$(smcctl policy)" "$(scope_of tcp-srv)" "no policy for a container without the annotation"
sum=$(cli tcp-cli "$ip2")
assert_eq 2 "$(echo "$sum" | jq .tcp)" "client and server without the annotation: TCP ($sum)"

# --- every container of podman: smc.yaml(5)'s recipe, /machine.slice ---------------------
# Without any annotation: podman's scopes are below /machine.slice, so the slice's entry
# switches every container started after it; then it is undone, so that the host-network
# container below (also below /machine.slice) is not switched by the entry.
targets() { smcctl -j policy | jq -r '.policies[].target'; }
assert_ok smcctl enable machine.slice
assert_eq /machine.slice "$(targets | grep -x /machine.slice)" "smcctl policy lists podman's slice"
ip3=$(srv all-srv | tail -n 1)
assert_match "$ip3" '^[0-9.]+$' "all-srv's address on the bridge"
sum=$(cli all-cli "$ip3")
assert_eq 2 "$(echo "$sum" | jq .smcd)" "/machine.slice switched, no annotation: SMC-D ($sum)"
assert_ok podman rm -f -t 0 all-srv all-cli
assert_ok smcctl disable machine.slice
assert_eq "" "$(targets | grep -x /machine.slice || true)" "... and the slice's entry is gone"

# --- host network, annotated: refused, with the reason ----------------------------------
podman run --name host-net --network host --annotation $ANN localhost/smc-conn \
	/bin/smc-conn pair --proto tcp --port 5099 --conns 1 >/tmp/host-net.out 2>&1 ||
	fail "podman run --network host: $(cat /tmp/host-net.out)"
sum=$(grep '"summary"' /tmp/host-net.out)
assert_eq 1 "$(echo "$sum" | jq .tcp)" "a host-network container's sockets stay TCP ($sum)"
assert_not_contains "$(smcctl policy)" "$(scope_of host-net)" "... no policy for its scope"
assert_contains "$(journalctl -t smcctl -o cat)" "stays on TCP: it has no network namespace of its own (host network)" \
	"... and the journal says why"

# --- podman kube play, the annotation on the pod -----------------------------------------
cat >/tmp/smc-pod.yaml <<'EOF'
apiVersion: v1
kind: Pod
metadata:
  name: smc-pod
  annotations:
    org.smcd.smc: "true"
spec:
  restartPolicy: Never
  containers:
    - name: pair
      image: localhost/smc-conn
      command: ["/bin/smc-conn", "pair", "--proto", "tcp", "--port", "5100", "--conns", "1"]
EOF
assert_ok podman kube play /tmp/smc-pod.yaml
wait_until 120 "the pod's container exited" sh -c \
	"podman inspect -f '{{.State.Status}}' smc-pod-pair | grep -qx exited"
sum=$(podman logs smc-pod-pair 2>&1 | grep '"summary"')
assert_eq 1 "$(echo "$sum" | jq .smcd)" "kube play, annotation on the pod: SMC-D ($sum)"
assert_ok podman kube down /tmp/smc-pod.yaml

# >>> identity (issue 39): smcctl socket -p names a container, not its scope >>>>>>>>>>>>>>>>>
# A client holds its connection to smc-srv open (--hold); while the two talk, smcctl socket -p
# in each one's network namespace (smc_diag lists a namespace's own sockets) names its
# holder podman:NAME, never libpod-<id>.scope, and -j has the holder's "container" object
# from podman's containers.json.
podman run -d --name smc-hold --annotation $ANN localhost/smc-conn /bin/smc-conn connect \
	--proto tcp --addr "$ip" --port 5000 --conns 1 --bytes 65536 --hold 300 >/tmp/smc-hold.id 2>&1 ||
	fail "podman run smc-hold: $(cat /tmp/smc-hold.id)"
srv_pid=$(podman inspect -f '{{.State.Pid}}' smc-srv)
hold_pid=$(podman inspect -f '{{.State.Pid}}' smc-hold)
wait_until 60 "smc-hold's connection is open" sh -c \
	"smcctl -n /proc/$hold_pid/ns/net socket -p | grep -q 'podman:smc-hold'"
out=$(smcctl -n /proc/$srv_pid/ns/net socket -p)
assert_contains "$out" "podman:smc-srv" "smcctl socket -p names the server container ($out)"
assert_not_contains "$out" "libpod-" "... never by its scope"
c=$(smcctl -n /proc/$srv_pid/ns/net -j socket -p |
	jq -c '[.sockets[].processes[].container | select(. != null)][0]')
assert_eq "smc-srv" "$(echo "$c" | jq -r .name)" "-j: the server's container object ($c)"
assert_eq "podman" "$(echo "$c" | jq -r .runtime)" "... its runtime"
assert_eq "$(podman inspect -f '{{.Id}}' smc-srv | cut -c1-12)" "$(echo "$c" | jq -r .id)" \
	"... its short id"
assert_match "$(echo "$c" | jq -r .image)" "smc-conn" "... its image"
assert_eq "null" "$(echo "$c" | jq -r .pod)" "... in no pod"
assert_ok podman rm -f -t 0 smc-hold
# <<< identity (issue 39) <<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<

# === stopped while the agent is down: nothing left behind (issue 39) ======================
# poststop cannot reach a stopped agent, so the drop-in stays until the agent starts: then
# it removes the drop-in of a container's scope whose cgroup is gone (unit-dropin.c).
gip=$(srv gone-srv --annotation $ANN | tail -n 1)
assert_match "$gip" '^[0-9.]+$' "gone-srv's address on the bridge"
gscope=$(scope_of gone-srv)
gfile="$D/50-unit-${gscope##*/}.yaml"
assert_exists "$gfile" "gone-srv's drop-in"
assert_ok systemctl stop $U
assert_ok podman rm -f -t 0 gone-srv
assert_not_exists "/sys/fs/cgroup$gscope" "gone-srv's cgroup is gone"
assert_exists "$gfile" "... its drop-in still there: poststop found no agent"
assert_contains "$(journalctl -t smcctl -o cat)" "cannot remove the drop-in of ${gscope##*/}: smcd-agent is not running" \
	"... and the hook said so"
assert_ok systemctl start $U
wait_until 120 "$U.service active again" systemctl is-active --quiet $U
assert_not_exists "$gfile" "the started agent removed the stopped container's drop-in"
assert_not_contains "$(smcctl policy)" "$gscope" "... and it is in no policy"
assert_contains "$(journalctl -u $U -o cat)" "its container is gone (no cgroup $gscope)" \
	"... and the agent said why"
assert_contains "$(smcctl policy)" "$scope" "smc-srv, still running, keeps its scope"
# === end: stopped while the agent is down ===================================================

# --- stopped: nothing left ----------------------------------------------------------------
assert_ok podman rm -f -t 0 smc-srv smc-cli smc-cli2 tcp-srv tcp-cli host-net
assert_eq "" "$(ls $D | grep libpod || true)" "no drop-in left after the containers stopped"
assert_not_contains "$(smcctl policy)" "libpod-" "no policy left"

# === kube play: the annotation on the container; the DaemonSet's pod (begin) ==============
# (issue 39, docs/kubernetes.md)  Kubernetes has annotations on pods only; podman kube play
# --annotation puts one on every container of the pod it creates, and not on the pod's
# infra container.  The same pod without it talks TCP.
cat >/tmp/smc-pod-ctr.yaml <<'EOT'
apiVersion: v1
kind: Pod
metadata:
  name: smc-pod-ctr
spec:
  restartPolicy: Never
  containers:
    - name: pair
      image: localhost/smc-conn
      command: ["/bin/smc-conn", "pair", "--proto", "tcp", "--port", "5101", "--conns", "1"]
EOT
# kube_pair ARGS...: play the pod with ARGS, its pair's summary line once it exited, then down
# (podman's own output to stderr: stdout is the summary).
kube_pair() {
	assert_ok podman kube play "$@" /tmp/smc-pod-ctr.yaml >&2
	wait_until 120 "smc-pod-ctr's container exited" sh -c \
		"podman inspect -f '{{.State.Status}}' smc-pod-ctr-pair | grep -qx exited"
	podman inspect -f '{{index .Config.Annotations "org.smcd.smc"}}' smc-pod-ctr-pair >/tmp/kube-ann.out
	podman logs smc-pod-ctr-pair 2>&1 | grep '"summary"'
	assert_ok podman kube down /tmp/smc-pod-ctr.yaml >&2
}
sum=$(kube_pair --annotation $ANN)
assert_eq true "$(cat /tmp/kube-ann.out)" "kube play --annotation: on the container"
assert_eq 1 "$(echo "$sum" | jq .smcd)" "kube play, annotation on the container only: SMC-D ($sum)"
sum=$(kube_pair)
assert_eq "" "$(cat /tmp/kube-ann.out)" "kube play without --annotation: none on the container"
assert_eq 1 "$(echo "$sum" | jq .tcp)" "kube play, no annotation: TCP ($sum)"

# contrib/kubernetes/smcd-agent-daemonset.yaml (systemd-lane copies it to /tests): its pod
# template, as a Pod, is one podman's Kubernetes parser takes and creates (not started: it
# installs a package on the node), privileged, on the node's network.  Its hostPID is not
# checked here: podman 4.3 gives the init container a PID namespace of its own (Kubernetes
# gives hostPID to every container of the pod); kubernetes-manifest.test checks the field.
awk 'BEGIN { print "apiVersion: v1"; print "kind: Pod" } /^---/ { t = 0 }
	t { sub(/^    /, ""); print; if ($0 == "metadata:") print "  name: smcd-agent-template" }
	/^  template:$/ { t = 1 }' /tests/smcd-agent-daemonset.yaml >/tmp/ds-pod.yaml
assert_contains "$(cat /tmp/ds-pod.yaml)" "initContainers:" "the DaemonSet's pod template extracted"
img=$(sed -n 's/^ *image: *//p' /tmp/ds-pod.yaml | sort -u)
assert_match "$img" '^[^ ]+$' "one image for both containers of the template ($img)"
assert_ok podman tag localhost/smc-conn "$img"
assert_ok podman kube play --start=false /tmp/ds-pod.yaml
for c in install status; do
	assert_eq "true host" "$(podman inspect -f '{{.HostConfig.Privileged}} {{.HostConfig.NetworkMode}}' \
		smcd-agent-template-$c)" "the template's $c container: privileged, on the node's network"
	info "$c: PidMode $(podman inspect -f '{{.HostConfig.PidMode}}' smcd-agent-template-$c)"
done
assert_ok podman kube down /tmp/ds-pod.yaml
assert_eq "" "$(ls $D | grep libpod || true)" "no drop-in left after the kube pods"
# === kube play: the annotation on the container; the DaemonSet's pod (end) ================
