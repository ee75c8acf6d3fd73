#!/bin/bash
# Starts the cluster BenchmarkPods10k and BenchmarkDeployments compare
# setpoint server with: kube-apiserver v1.33 + etcd (the oracle of
# ../shared/perf/oracle, built into $ORACLE_DIR by its build.sh),
# kube-controller-manager with the controllers setpoint server runs for
# pods and workloads, kube-scheduler, and kwok simulating $NODES nodes. kube-scheduler's and kwok's build is in
# test/perf/kube/README.md. Stop it with $ORACLE_DIR/stop.sh plus
# `kill $(cat $ORACLE_DIR/run/kube-scheduler.pid $ORACLE_DIR/run/kwok.pid)`.
#
# The last line it prints holds the benchmark's flags:
#   go test ./test/perf/ -run '^$' -bench BenchmarkPods10k -benchtime 1x -timeout 30m -args <flags>
# (or -bench BenchmarkDeployments).
set -euo pipefail
O=${ORACLE_DIR:-/tmp/oracle}
export ORACLE_DIR=$O
NODES=${NODES:-100}
RUN=$O/run; LOG=$O/logs

# kwokctl's --disable-qps-limits for kube-controller-manager and
# kube-scheduler: their defaults of 20 and 50 requests a second would
# make creating or binding 10,000 pods take minutes. Under that load kwok
# renews its nodes' leases late, and after the default 50 s grace the
# node lifecycle controller marks every pod NotReady, which kwok never
# undoes: a longer grace keeps the run measuring pods, not that.
KCM_CONTROLLERS=namespace,garbagecollector,nodelifecycle,podgc,endpoint,endpointslice,disruption,taint-eviction-controller,deployment,replicaset \
  KCM_EXTRA_ARGS="--kube-api-qps=5000 --kube-api-burst=10000 --node-monitor-grace-period=5m" \
  "$O/start.sh" >&2

"$O/bin/kube-scheduler" --kubeconfig="$O/kubeconfig-kcm" --leader-elect=false --secure-port=0 \
  --kube-api-qps=5000 --kube-api-burst=10000 --v=1 > "$LOG/kube-scheduler.log" 2>&1 &
echo $! > "$RUN/kube-scheduler.pid"

"$O/bin/kwok" --kubeconfig="$O/kubeconfig-kcm" --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --cidr=10.244.0.0/16 --node-ip=10.240.0.1 --server-address=127.0.0.1:0 > "$LOG/kwok.log" 2>&1 &
echo $! > "$RUN/kwok.pid"

for i in $(seq 0 $((NODES - 1))); do
  cat <<EON
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations: {kwok.x-k8s.io/node: fake, node.alpha.kubernetes.io/ttl: "0"}
  labels: {kubernetes.io/hostname: kwok-node-$i, kubernetes.io/os: linux, kubernetes.io/arch: amd64, type: kwok}
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
EON
done | kubectl --kubeconfig="$O/kubeconfig" apply -f - >/dev/null

kubectl --kubeconfig="$O/kubeconfig" wait --for=condition=Ready node --all --timeout=120s >&2
pids=$(cat "$RUN/etcd.pid" "$RUN/kube-apiserver.pid" "$RUN/kube-controller-manager.pid" "$RUN/kube-scheduler.pid" "$RUN/kwok.pid" | paste -sd,)
echo "-perf.kubeconfig $O/kubeconfig -perf.pids $pids -perf.nodes $NODES"
