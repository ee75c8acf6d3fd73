#!/bin/bash
# Records how a real kube-apiserver v1.33 reconciles changed default RBAC
# objects at start. On a fresh cluster (nothing but the hook's objects; the
# oracle of /work/shared/perf/oracle/README.md with WITH_KCM=0) it changes
# some defaults, restarts the apiserver on the same etcd, and writes:
#   before.json  the objects as changed, and the defaults deleted ("absent")
#   after.json   what differs from the defaults after the restart
# both relative to the golden files in .. (the untouched defaults).
#   KUBECONFIG=... RESTART='stop.sh && KEEP_DATA=1 WITH_KCM=0 start.sh' ./gen.sh
set -euo pipefail
cd "$(dirname "$0")"
: "${RESTART:?command restarting kube-apiserver on the same etcd}"
k() { kubectl "$@"; }
# change KIND NAME [-n NS] JQ: replace the object with JQ applied to it
change() {
  local kind=$1 name=$2; shift 2
  local ns=(); if [[ $1 == -n ]]; then ns=(-n "$2"); shift 2; fi
  k get "$kind" "$name" "${ns[@]}" -o json | jq "$1" | k replace -f - >/dev/null
}
auto_false='.metadata.annotations["rbac.authorization.kubernetes.io/autoupdate"]="false"'
user() { printf '{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"%s"}' "$1"; }

# rules: some missing, one extra; covered by wildcards; resource names; paths
change clusterrole system:kube-dns '.rules=[{"apiGroups":[""],"resources":["endpoints"],"verbs":["list"]},{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get"]}]'
change role system:controller:cloud-provider -n kube-system '.rules=[{"apiGroups":[""],"resources":["*"],"verbs":["*"]}]'
change role system:controller:token-cleaner -n kube-system '.rules=[{"apiGroups":[""],"resources":["secrets"],"verbs":["get"]}]'
change role system::leader-locking-kube-scheduler -n kube-system '(.rules[] | select(.resourceNames)).resourceNames=["other"]'
change clusterrole system:discovery '.rules=[{"nonResourceURLs":["/api/*","/livez"],"verbs":["get"]}]'
# opted out
change clusterrole system:node-proxier "$auto_false"' | .rules=[]'
change clusterrolebinding system:volume-scheduler "$auto_false"' | .subjects=[]'
# metadata: stored values win, missing ones come back
change clusterrole system:monitoring '.metadata.labels={"kubernetes.io/bootstrapping":"mine"} | del(.metadata.annotations)'
# aggregation: removed, replaced
change clusterrole view 'del(.aggregationRule) | .rules=[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]'
change clusterrole admin '.aggregationRule.clusterRoleSelectors=[{"matchLabels":{"example.com/mine":"true"}}]'
# deleted objects come back
k delete clusterrole system:heapster >/dev/null
# subjects: union; roleRef: recreate
change clusterrolebinding system:kube-dns ".subjects=[$(user extra)]"
change rolebinding system:controller:bootstrap-signer -n kube-public ".subjects=[$(user extra)] | .metadata.labels.extra=\"yes\""
k delete clusterrolebinding system:basic-user >/dev/null
k create clusterrolebinding system:basic-user --clusterrole=system:discovery --user=x >/dev/null
# a legacy edit role holding its rules itself, before aggregate-to-edit existed
rules=$(k get clusterrole system:aggregate-to-edit -o json | jq -c '.rules')
k delete clusterrole system:aggregate-to-edit >/dev/null
change clusterrole edit "del(.aggregationRule) | .rules=$rules + [{\"apiGroups\":[\"example.com\"],\"resources\":[\"widgets\"],\"verbs\":[\"get\"]}]"
# system:discovery before system:public-info-viewer was split from it
k delete clusterrolebinding system:public-info-viewer >/dev/null
change clusterrolebinding system:discovery ".subjects=[$(user extra)] | .metadata.annotations.note=\"x\""

snapshot() {
  for kind in clusterroles clusterrolebindings roles rolebindings; do k get "$kind" -A -o json; done |
    jq -s '[.[].items[] | del(.metadata.uid, .metadata.resourceVersion, .metadata.creationTimestamp, .metadata.managedFields)]'
}
# diff against the golden defaults: changed or new objects, and the keys
# of defaults that are gone
diff_defaults() {
  jq -r --slurpfile d <(jq -s 'add' ../clusterroles.json ../clusterrolebindings.json ../roles.json ../rolebindings.json) '
    def okey: .kind + "/" + (if .metadata.namespace then .metadata.namespace + "/" else "" end) + .metadata.name;
    (map({key: okey, value: .}) | from_entries) as $now
    | ($d[0] | map({key: okey, value: .}) | from_entries) as $dflt
    | {changed: [$now | to_entries[] | select($dflt[.key] != .value) | .value] | sort_by(okey),
       absent: [$dflt | keys[] | select($now[.] == null)]}
    | "{\"absent\": \(.absent | tojson),\n\"changed\": [\n" + (.changed | map(tojson) | join(",\n")) + "\n]}"'
}
snapshot | diff_defaults >before.json
eval "$RESTART" >/dev/null
snapshot | diff_defaults >after.json
