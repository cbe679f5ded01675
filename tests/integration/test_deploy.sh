#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# deploy/: what can be checked without a container runtime or a cluster.
# Debian bookworm packages no Kubernetes manifest policy linter
# (kube-linter, kubeconform, kube-score): this test asserts each rule.
#  - The manifests parse; the DaemonSet is privileged, in the host's PID
#    namespace, mounts the host's bpffs (Bidirectional), kernel BTF, MSR
#    devices and /run (the machine lock and the run directory) at the paths
#    govloader uses; its port, liveness probe (status) and preStop (stop)
#    agree with the CLI, the Service, the Containerfile and
#    deploy/prometheus.yml.
#  - The rules a security review asks for: metrics on the pod's own address
#    (downward API), the image's default on 127.0.0.1; a NetworkPolicy
#    that admits ingress to that port only from Prometheus' pods (the
#    labels deploy/prometheus.yml documents) and denies all other ingress
#    and all egress; a ServiceAccount and pod without a token; the image
#    pinned by digest (deploy/build.sh manifest writes the built one's);
#    no toleration, and a node affinity that keeps it off control-plane
#    nodes (the opt-in documented).
#  - `promtool check config` passes on deploy/prometheus.yml.
#  - The Containerfile runs only deploy/build.sh steps on Debian bookworm;
#    those steps build and install govloader from a copy of the tree taken
#    as the image build context is (.dockerignore); the installed binary
#    links only libraries of the runtime-deps packages.
#  - That binary runs with the DaemonSet's arguments (plus --dry-run) and
#    its ConfigMap's configuration: metrics on the port, the liveness
#    command exits 0, a stop from another PID namespace refuses (unshare),
#    the preStop command stops it, then liveness fails.
. "$(dirname "$0")/../lib.sh"

DEP=$TOP/deploy
PY=/usr/bin/python3
for tool in promtool curl $PY; do
	command -v $tool >/dev/null || { not_ok "$tool missing (scripts/deps.sh installs it)"; t_done; exit 1; }
done
check "python3-yaml is installed" $PY -c 'import yaml'

# 1. Facts from the manifests, one KEY=VALUE a line (python3-yaml).
$PY - "$DEP/bpfgov-daemonset.yaml" "$DEP/prometheus.yml" >"$T_TMP/facts" 2>"$T_TMP/facts.err" <<'EOF'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
prom = yaml.safe_load(open(sys.argv[2]))
by = {d["kind"]: d for d in docs}
ds, svc, cm = by["DaemonSet"], by["Service"], by["ConfigMap"]
sa, np = by.get("ServiceAccount", {}), by.get("NetworkPolicy", {})
pod = ds["spec"]["template"]["spec"]
c = pod["containers"][0]
labels = ds["spec"]["template"]["metadata"]["labels"]
def out(k, v): print(f"{k}={v}")
def low(v): return str(v).lower()
out("kinds", ",".join(sorted(by)))
out("containers", len(pod["containers"]) + len(pod.get("initContainers", [])))
out("image", c["image"])
# Service account: no token, in the ServiceAccount and in the pod.
out("sa", f'{sa.get("metadata", {}).get("name", "-")} {low(sa.get("automountServiceAccountToken", "unset"))}')
out("pod_sa", f'{pod.get("serviceAccountName", "-")} {low(pod.get("automountServiceAccountToken", "unset"))}')
# Scheduling: tolerations, and the control-plane key in every required term.
out("tolerations", len(pod.get("tolerations", []) or []))
terms = (pod.get("affinity", {}).get("nodeAffinity", {})
         .get("requiredDuringSchedulingIgnoredDuringExecution", {}).get("nodeSelectorTerms", []))
out("cp_terms", f'{len(terms)} ' + str(sum(any(e.get("key") == "node-role.kubernetes.io/control-plane"
      and e.get("operator") == "DoesNotExist" for e in t.get("matchExpressions", [])) for t in terms)))
out("node_name", pod.get("nodeName", "-"))
# Environment from the downward API: NAME fieldPath.
for e in c.get("env", []):
    f = e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath", "-")
    out("env", f'{e["name"]} {f}')
out("hostNetwork", low(pod.get("hostNetwork", False)))
out("hostPorts", sum(1 for p in c["ports"] if "hostPort" in p))
# NetworkPolicy: selects the pods; ingress to the port from Prometheus only.
nps = np.get("spec", {})
out("np_ns", np.get("metadata", {}).get("namespace", "-"))
out("np_selects_pods", low(bool(nps.get("podSelector", {}).get("matchLabels")) and
    all(labels.get(k) == v for k, v in nps["podSelector"]["matchLabels"].items())))
out("np_types", ",".join(sorted(nps.get("policyTypes", []))))
out("np_egress", "absent" if "egress" not in nps else len(nps["egress"] or []))
ing = nps.get("ingress", []) or []
out("np_ingress_rules", len(ing))
for r in ing:
    out("np_ports", " ".join(f'{p.get("port", "ALL")}/{p.get("protocol", "TCP")}' for p in r.get("ports", []) or []) or "ALL")
    for peer in r.get("from", []) or [{}]:
        ns_l = peer.get("namespaceSelector", {}).get("matchLabels", {}) if "namespaceSelector" in peer else None
        pod_l = peer.get("podSelector", {}).get("matchLabels", {}) if "podSelector" in peer else None
        out("np_peer", " ".join([
            "ipBlock" if "ipBlock" in peer else "-",
            ",".join(f"{k}={v}" for k, v in sorted(ns_l.items())) if ns_l else ("ANY" if ns_l is not None else "SAME"),
            ",".join(f"{k}={v}" for k, v in sorted(pod_l.items())) if pod_l else ("ANY" if pod_l is not None else "ANY"),
            str(sum(len(s.get("matchExpressions", [])) for s in (peer.get("namespaceSelector", {}), peer.get("podSelector", {}))))]))
out("ns", ds["metadata"]["namespace"])
out("ns_all", ",".join(sorted({d["metadata"].get("namespace", d["metadata"]["name"]) for d in docs})))
out("privileged", str(c["securityContext"]["privileged"]).lower())
out("hostPID", str(pod.get("hostPID", False)).lower())
out("selector_ok", str(all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v
      for k, v in ds["spec"]["selector"]["matchLabels"].items())).lower())
out("svc_selector_ok", str(all(ds["spec"]["template"]["metadata"]["labels"].get(k) == v
      for k, v in svc["spec"]["selector"].items())).lower())
out("svc_headless", str(svc["spec"].get("clusterIP") == "None").lower())
out("command", " ".join(c["command"]))
out("args", " ".join(c["args"]))
out("liveness", " ".join(c["livenessProbe"]["exec"]["command"]))
out("prestop", " ".join(c["lifecycle"]["preStop"]["exec"]["command"]))
out("grace", pod["terminationGracePeriodSeconds"])
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
out("container_port", ports.get("metrics", ""))
ann = ds["spec"]["template"]["metadata"].get("annotations", {})
out("ann_port", ann.get("prometheus.io/port", ""))
out("ann_path", ann.get("prometheus.io/path", ""))
sp = svc["spec"]["ports"][0]
out("svc_name", svc["metadata"]["name"])
out("svc_port", sp["port"])
out("svc_port_name", sp["name"])
out("svc_target", sp["targetPort"])
vols = {v["name"]: v for v in pod["volumes"]}
for m in c["volumeMounts"]:
    v = vols.get(m["name"])
    src = v["hostPath"]["path"] if v and "hostPath" in v else (
          "configMap:" + v["configMap"]["name"] if v and "configMap" in v else "MISSING")
    out("mount", f'{m["mountPath"]} {src} {m.get("mountPropagation", "-")} '
                 f'{str(m.get("readOnly", False)).lower()} {m.get("subPath", "-")}')
for k, v in cm["data"].items():
    out("configmap_key", f'{cm["metadata"]["name"]} {k}')
for j in prom["scrape_configs"]:
    for sc in j.get("static_configs", []):
        for t in sc["targets"]:
            out("prom_static", f'{j["job_name"]} {t} {j.get("metrics_path", "/metrics")}')
    for d in j.get("dns_sd_configs", []):
        for n in d["names"]:
            out("prom_srv", f'{j["job_name"]} {n} {d.get("type", "SRV")} {j.get("metrics_path", "/metrics")}')
EOF
check "the manifests parse (python3-yaml)" test ! -s "$T_TMP/facts.err"
[ -s "$T_TMP/facts.err" ] && sed 's/^/# /' "$T_TMP/facts.err"
fact() { sed -n "s/^$1=//p" "$T_TMP/facts" | head -n1; }
facts() { sed -n "s/^$1=//p" "$T_TMP/facts"; }

is "manifest kinds" "$(fact kinds)" "ConfigMap,DaemonSet,Namespace,NetworkPolicy,Service,ServiceAccount"
is "everything in one namespace" "$(fact ns_all)" "$(fact ns)"
is "DaemonSet: privileged" "$(fact privileged)" true
is "DaemonSet: hostPID" "$(fact hostPID)" true
is "DaemonSet: selector matches the pod labels" "$(fact selector_ok)" true
is "Service: headless, selects the pods" "$(fact svc_headless) $(fact svc_selector_ok)" "true true"

# Paths: where govloader looks, from its own help.
start_help=$("$GOV" start --help)
default_of() { grep -E -- "^ +$1 " <<<"$start_help" | grep -oE '\(/[^ )]+' | head -n1 | tr -d '('; }
pin=$(default_of --pin-root)
msr=$(default_of --msr-root)
btf=$(default_of --btf)
conf=$(default_of --config)
run=$("$GOV" restore --help | grep -oE 'or /[a-z/]+' | head -n1 | sed 's/^or //')
check "start --help names its defaults ($pin, $msr, $btf, $conf, $run)" \
	test -n "$pin" -a -n "$msr" -a -n "$btf" -a -n "$conf" -a -n "$run"
# The machine lock: the one /run/*.lock path in the binary (its messages name it).
mlock=$(grep -aoE '/run/[a-z]+\.lock' "$GOV" | sort -u)
check "the binary names one machine lock ($mlock)" test "$(wc -w <<<"$mlock")" -eq 1
mount_of() { facts mount | awk -v p="$1" '$1 == p'; }
m=$(mount_of /sys/fs/bpf)
is "bpffs: host /sys/fs/bpf, Bidirectional, writable" "$m" "/sys/fs/bpf /sys/fs/bpf Bidirectional false -"
check "  ... holds the pin root $pin" bash -c "[[ '$pin' == /sys/fs/bpf/* ]]"
is "kernel BTF: host ${btf%/*}, read-only" "$(mount_of "${btf%/*}")" "${btf%/*} ${btf%/*} - true -"
is "MSR devices: host $msr" "$(mount_of "$msr")" "$msr $msr - false -"
is "host ${mlock%/*}: the machine lock $mlock, shared with the host" "$(mount_of "${mlock%/*}")" \
	"${mlock%/*} ${mlock%/*} - false -"
check "  ... holds the run directory $run" bash -c "[[ '$run' == '${mlock%/*}'/* ]]"
is "  ... no narrower mount under it hides the host's" \
	"$(facts mount | awk -v p="${mlock%/*}/" 'index($1, p) == 1' | wc -l)" 0
cmname=$(fact configmap_key)
is "configuration: $conf from the ConfigMap, one file (subPath), read-only" "$(mount_of "$conf")" \
	"$conf configMap:${cmname% *} - true ${cmname#* }"
is "no mount without a volume" "$(facts mount | grep -c MISSING)" 0

# The command, the probe and preStop are govloader commands.
bin=$(fact command)
read -r -a args <<<"$(fact args)"
read -r -a live <<<"$(fact liveness)"
read -r -a pre <<<"$(fact prestop)"
is "liveness runs the same binary" "${live[0]}" "$bin"
is "preStop runs the same binary" "${pre[0]}" "$bin"
is "liveness is 'govloader status'" "${live[-1]}" status
is "preStop is 'govloader stop'" "${pre[*]:1}" stop
is "the container runs 'govloader start'" "${args[0]}" start
for a in "${args[@]:1}"; do
	case "$a" in
	--*) check "start accepts $a (in its --help)" grep -qE -- "^ +$a( |,)" <<<"$start_help" ;;
	esac
done
stop_timeout=$("$GOV" stop --help | grep -E -- '--timeout S' | grep -oE '\([0-9]+ s\)' | grep -oE '[0-9]+')
check "grace period ($(fact grace) s) > stop's timeout (${stop_timeout:-?} s)" test "$(fact grace)" -gt "${stop_timeout:-999}"

# Ports: args, container port, annotation, Service, Prometheus, Containerfile.
listen=
for i in "${!args[@]}"; do [ "${args[$i]}" = --metrics-listen ] && listen=${args[$((i + 1))]}; done
port=${listen##*:}
addr=${listen%:*}
var=$(sed -nE 's/^\$\(([A-Z_]+)\)$/\1/p' <<<"$addr")
check "--metrics-listen ADDR:PORT ($listen): ADDR is a variable, not a wildcard" test -n "$var"
is "  ... \$($var) is the pod's IP (downward API status.podIP)" "$(facts env | awk -v v="$var" '$1 == v {print $2}')" status.podIP
is "no hostNetwork, no hostPort: the pod's address is its own" "$(fact hostNetwork) $(fact hostPorts)" "false 0"
is "containerPort 'metrics'" "$(fact container_port)" "$port"
is "prometheus.io/port annotation" "$(fact ann_port)" "$port"
is "prometheus.io/path annotation" "$(fact ann_path)" /metrics
is "Service port and target" "$(fact svc_port) $(fact svc_target)" "$port metrics"
is "Prometheus SRV name: the Service's port in its namespace" "$(fact prom_srv | awk '{print $2, $3, $4}')" \
	"_$(fact svc_port_name)._tcp.$(fact svc_name).$(fact ns).svc.cluster.local SRV /metrics"
is "Prometheus static target: start --metrics-listen $port (127.0.0.1)" \
	"$(fact prom_static | awk '{print $2, $3}')" "127.0.0.1:$port /metrics"
out=$(promtool check config "$DEP/prometheus.yml" 2>&1)
check "promtool check config deploy/prometheus.yml" grep -q SUCCESS <<<"$out"
[ -n "$out" ] && grep -q SUCCESS <<<"$out" || sed 's/^/# /' <<<"$out"

# The NetworkPolicy: the pods' ingress to the port from Prometheus only, no egress.
is "NetworkPolicy in the DaemonSet's namespace, selecting its pods" "$(fact np_ns) $(fact np_selects_pods)" "$(fact ns) true"
is "NetworkPolicy: policyTypes Ingress and Egress" "$(fact np_types)" "Egress,Ingress"
is "NetworkPolicy: egress [] (denies all egress)" "$(fact np_egress)" 0
is "NetworkPolicy: one ingress rule" "$(fact np_ingress_rules)" 1
is "  ... to the metrics port alone" "$(fact np_ports)" "$port/TCP"
peers=$(facts np_peer)
is "  ... from one peer" "$(wc -l <<<"$peers")" 1
read -r ipb nsl podl nexpr <<<"$peers"
is "  ... no ipBlock, no matchExpressions" "$ipb $nexpr" "- 0"
check "  ... a namespace by label ($nsl)" bash -c "[[ '$nsl' == *=* ]]"
check "  ... and pods by label ($podl)" bash -c "[[ '$podl' == *=* ]]"
for l in ${nsl//,/ } ${podl//,/ }; do
	check "  ... label $l documented in deploy/prometheus.yml" grep -qE "^#.* ${l//./\\.}\$" "$DEP/prometheus.yml"
done

# No API access, no control-plane nodes unless asked, the image pinned.
sa=$(fact sa)
is "ServiceAccount: automountServiceAccountToken false" "${sa#* }" false
is "pod: that ServiceAccount, automountServiceAccountToken false" "$(fact pod_sa)" "${sa% *} false"
is "no tolerations (none for control-plane or other taints)" "$(fact tolerations)" 0
cp=$(fact cp_terms)
check "node affinity: every required term keeps off node-role.kubernetes.io/control-plane ($cp)" \
	bash -c "read -r n k <<<'$cp'; [ \"\$n\" -ge 1 ] && [ \"\$n\" = \"\$k\" ]"
is "no nodeName" "$(fact node_name)" -
check "  ... the header says how to opt in (a control-plane toleration)" bash -c \
	"grep -A3 '^#  *- key: node-role.kubernetes.io/control-plane' '$DEP/bpfgov-daemonset.yaml' | grep -q 'operator: Exists'"
img=$(fact image)
ref_re='^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$'
check "image pinned by digest ($img)" bash -c "[[ '$img' =~ $ref_re ]]"
check "  ... no :latest anywhere in deploy/" bash -c "! grep -rn ':latest' '$DEP'"
is "  ... one container (its image is the only one)" "$(fact containers)" 1
built=example.org:5000/bpfgov@sha256:$(printf '%064x' 3141592653589793)
(cd "$TOP" && IMAGE_REF=$built deploy/build.sh manifest) >"$T_TMP/pinned.yaml" 2>"$T_TMP/e"
is "build.sh manifest (IMAGE_REF=$built): exit 0" "$?:$(cat "$T_TMP/e")" "0:"
is "  ... prints the manifest with image: that reference, and nothing else changed" \
	"$(diff "$DEP/bpfgov-daemonset.yaml" "$T_TMP/pinned.yaml" | grep '^[<>]')" \
	"$(printf '< %s\n> %s' "$(grep -E '^ +image: ' "$DEP/bpfgov-daemonset.yaml")" \
	  "$(grep -E '^ +image: ' "$DEP/bpfgov-daemonset.yaml" | sed "s|image: .*|image: $built|")")"
check "  ... which parses with that image" bash -c "$PY -c 'import sys, yaml; d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x[\"kind\"] == \"DaemonSet\"][0]; sys.exit(d[\"spec\"][\"template\"][\"spec\"][\"containers\"][0][\"image\"] != sys.argv[2])' '$T_TMP/pinned.yaml' '$built'"
(cd "$TOP" && IMAGE_REF=example.org/bpfgov:latest deploy/build.sh manifest) >/dev/null 2>"$T_TMP/e"
is "build.sh manifest refuses a tag (exit 2, one line)" "$?:$(wc -l <"$T_TMP/e")" "2:1"
(cd "$TOP" && BUILD=$T_TMP/nobuild IMAGE_REF= deploy/build.sh manifest) >/dev/null 2>"$T_TMP/e"
is "build.sh manifest without a built image: exit 2, one line" "$?:$(wc -l <"$T_TMP/e")" "2:1"
(cd "$TOP" && IMAGE= deploy/build.sh --dry-run deps image) >"$T_TMP/e" 2>&1
is "build.sh image without IMAGE: exit 2 before any step" "$?:$(cat "$T_TMP/e")" \
	"2:build.sh image: set IMAGE=REGISTRY/NAME[:TAG], where the nodes pull from"
(cd "$TOP" && ENGINE=podman IMAGE=example.org/bpfgov:1 BUILD=$T_TMP/b deploy/build.sh --dry-run image manifest) >"$T_TMP/dry-img" 2>&1
check "build.sh --dry-run image manifest: build, push with its digest, pin" bash -c \
	"grep -q '^+ podman build -f deploy/Containerfile -t example.org/bpfgov:1 \.\$' '$T_TMP/dry-img' &&
	 grep -q '^+ podman push --digestfile $T_TMP/b/image.digest example.org/bpfgov:1\$' '$T_TMP/dry-img' &&
	 grep -q 'image: example.org/bpfgov@<the pushed digest>' '$T_TMP/dry-img'"
check "  ... documented in the manifest's header and docs/OPERATIONS.md" bash -c \
	"grep -q '^#.*deploy/build.sh image manifest' '$DEP/bpfgov-daemonset.yaml' && grep -q 'deploy/build.sh image manifest' '$TOP/docs/OPERATIONS.md'"

# 2. The Containerfile: bookworm, build.sh steps, the DaemonSet's command.
CF=$DEP/Containerfile
froms=$(awk '$1 == "FROM" {print $2}' "$CF" | tr '\n' ' ')
check "FROM Debian bookworm only ($froms)" bash -c "! tr ' ' '\n' <<<'$froms' | grep . | grep -vqE '^docker.io/library/debian:bookworm(-slim)?$'"
is "ENTRYPOINT is the DaemonSet's command" "$(sed -n 's/^ENTRYPOINT //p' "$CF")" "[\"$bin\"]"
cmd=$(sed -n 's/^CMD //p' "$CF" | $PY -c 'import json,sys; print(" ".join(json.load(sys.stdin)))')
is "CMD is the DaemonSet's args, listening on 127.0.0.1" "$cmd" "${args[*]/#$listen/127.0.0.1:$port}"
is "EXPOSE the metrics port" "$(sed -n 's/^EXPOSE //p' "$CF")" "$port"
steps=$(awk '$1 == "RUN"' "$CF")
check "every RUN is deploy/build.sh" bash -c "! grep -vE '^RUN (deploy|/usr/local/lib/bpfgov)/build.sh ' <<<'$steps'"
all_steps=$(grep -oE 'build.sh [a-z -]+' <<<"$steps" | sed 's/^build.sh //' | tr '\n' ' ')
check "build.sh --dry-run $all_steps" bash -c "'$DEP/build.sh' --dry-run $all_steps >'$T_TMP/dry' 2>&1"
check "  ... prints make govloader and make install, runs nothing" bash -c \
	"grep -q '^+ make .*govloader' '$T_TMP/dry' && grep -q '^+ make .*install prefix=/usr DESTDIR=/out' '$T_TMP/dry'"
# The packages it names are Debian's (installed here by scripts/deps.sh).
pkgs=$(grep -oE 'install -y -qq --no-install-recommends( -t bookworm-backports)? .*' "$T_TMP/dry" |
       sed -E 's/.*--no-install-recommends( -t bookworm-backports)? //' | tr ' ' '\n' | grep . | sort -u)
check "build.sh names build and runtime packages" test "$(wc -l <<<"$pkgs")" -ge 10
for p in $pkgs; do
	check "  package $p is installed" bash -c "dpkg-query -W -f='\${Status}' '$p' 2>/dev/null | grep -q 'install ok installed'"
done
"$DEP/build.sh" --dry-run nonsense >/dev/null 2>"$T_TMP/e"
is "build.sh: an unknown step is a usage error" "$?:$(cat "$T_TMP/e")" \
	"2:build.sh: unknown step 'nonsense' (deps, build, install, runtime-deps, image, manifest)"

# 3. Build and install as the image does, from the build context.
SRC=$T_TMP/src
OUT=$T_TMP/out
mkdir -p "$SRC"
excl=()
while read -r l; do
	case "$l" in ''|'#'*) continue ;; esac
	excl+=("--exclude=./${l%/}")
done <"$TOP/.dockerignore"
tar -C "$TOP" "${excl[@]}" -cf - . | tar -C "$SRC" -xf -
check "the build context has no build output" test ! -e "$SRC/build" -a ! -e "$SRC/govloader" -a ! -e "$SRC/govlab"
check "build.sh build install (in the build context)" \
	bash -c "cd '$SRC' && DESTDIR='$OUT' deploy/build.sh build install >'$T_TMP/build.log' 2>&1"
tail -n 5 "$T_TMP/build.log" | sed 's/^/#   /'
IMG_GOV=$OUT$bin
check "installed $bin" test -x "$IMG_GOV"
check "installed govlab beside it" test -x "$(dirname "$IMG_GOV")/govlab"
check "installed govloader(8), govlab(8) and bpfgov.conf(5)" test -f "$OUT/usr/share/man/man8/govloader.8" -a -f "$OUT/usr/share/man/man8/govlab.8" -a -f "$OUT/usr/share/man/man5/bpfgov.conf.5"
runtime=$(sed -n 's/^RUNTIME_PKGS=(\(.*\))/\1/p; s/^RUNTIME_BP_PKGS=(\(.*\))/\1/p' "$DEP/build.sh" | tr '\n' ' ')
for lib in $(readelf -d "$IMG_GOV" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldd "$IMG_GOV" | awk -v l="$lib" '$1 == l {print $3}')
	pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null)
	pkg=${pkg%%:*}
	check "needs $lib from ${pkg:-?}: in runtime-deps (or libc6)" \
		bash -c "[ '$pkg' = libc6 ] || grep -qw -- '$pkg' <<<'$runtime'"
done

# 4. The image's binary with the DaemonSet's arguments (the port moved to a
# free one, --dry-run) and the ConfigMap's file.
export BPFGOV_RUN_DIR=$T_TMP/run
$PY - "$DEP/bpfgov-daemonset.yaml" >"$T_TMP/bpfgov.conf" <<'EOF'
import sys, yaml
for d in yaml.safe_load_all(open(sys.argv[1])):
    if d and d["kind"] == "ConfigMap":
        sys.stdout.write(d["data"]["bpfgov.conf"])
EOF
chmod 0644 "$T_TMP/bpfgov.conf"
PORT=$((20000 + RANDOM % 20000))
run_args=()
for a in "${args[@]:1}"; do
	[ "$a" = "$listen" ] && a=127.0.0.1:$PORT	# $(POD_IP): the host's loopback here
	run_args+=("$a")
done
GOV=$IMG_GOV gov_start "${run_args[@]}" --config "$T_TMP/bpfgov.conf" --dry-run
check "it runs with the ConfigMap's profile" bash -c "'$IMG_GOV' status --json | jq -e '.profile == \"balanced\" and .config_file == \"$T_TMP/bpfgov.conf\"' >/dev/null"
"${live[@]/#$bin/$IMG_GOV}" >/dev/null 2>&1
is "liveness command while running: exit 0" "$?" 0
sleep 1
curl -sS -o "$T_TMP/m.prom" "http://127.0.0.1:$PORT/metrics" 2>/dev/null
check "metrics on the pod's port: bpfgov_up 1" grep -qx 'bpfgov_up 1' "$T_TMP/m.prom"
check "  ... promtool check metrics" promtool check metrics <"$T_TMP/m.prom"
# The lock names the pid's namespace; a stop from another PID namespace
# (same /run) refuses, even where that pid number is another process there.
is "the machine lock records the PID namespace ($(readlink /proc/self/ns/pid))" \
	"$(sed -n 3p /run/bpfgov.lock)" "$(readlink /proc/self/ns/pid)"
gpid=$(sed -n 1p /run/bpfgov.lock)
GPID=$gpid IMG_GOV=$IMG_GOV timeout 30 unshare --pid --fork --mount-proc bash -c '
	echo $((GPID - 1)) >/proc/sys/kernel/ns_last_pid
	sleep 30 &
	decoy=$!
	"$IMG_GOV" stop --timeout 2 >/dev/null 2>"$0.err"
	echo "rc=$? decoy=$([ "$decoy" = "$GPID" ] && echo same || echo "$decoy")" \
	     "$(kill -0 $decoy 2>/dev/null && echo alive || echo killed)"
	kill $decoy 2>/dev/null' "$T_TMP/ns" >"$T_TMP/ns.out" 2>&1
r=$(cat "$T_TMP/ns.out")
is "stop from another PID namespace, pid $gpid there a sleep: exit 1, the sleep not signalled" \
	"$r" "rc=1 decoy=same alive"
is "  ... one line: another PID namespace" "$(wc -l <"$T_TMP/ns.err") $(grep -c 'of another PID namespace' "$T_TMP/ns.err")" "1 1"
sed 's/^/#   /' "$T_TMP/ns.err"
"${live[@]/#$bin/$IMG_GOV}" >/dev/null 2>&1
is "  ... and bpfgov still runs (liveness exit 0)" "$?" 0
"${pre[@]/#$bin/$IMG_GOV}" >/dev/null 2>&1
is "preStop command: exit 0" "$?" 0
gov_wait
is "start exited 0 after preStop" "$GOV_RC" 0
"${live[@]/#$bin/$IMG_GOV}" >/dev/null 2>&1
is "liveness command after stop: exit 3 (not running)" "$?" 3
check "nothing pinned any more" test ! -e "$PIN/cpu_state"
t_done
