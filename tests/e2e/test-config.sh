#!/usr/bin/env bash
# test-config.sh: pods read ConfigMaps and Secrets, as root through kubectl against `flexlet
# serve`: env[].valueFrom.configMapKeyRef and secretKeyRef, envFrom with a prefix, an optional
# reference to what does not exist (the skipping of invalid variable names is unit-tested in
# tests/unit/node/test-pod-config.c); a container whose ConfigMap is missing waits in
# CreateContainerConfigError with the kubelet's message and starts once the ConfigMap is
# created (the agent watches ConfigMaps, no poll).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/server.sh"
. "$here/../lib/node.sh"
node_require_root

node_test_start
# var POD NAME: the NAME=... line of the env the pod printed
var() { k logs "$1" 2>/dev/null | grep "^$2="; }
check_output "the node registers and is Ready" "condition met" k wait --for=condition=Ready node/test-node --timeout=30s

k apply -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"app"},
 "data":{"mode":"fast","level":"3"}}
JSON
k apply -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"Secret","metadata":{"name":"creds"},
 "stringData":{"password":"s3cr$t value"}}
JSON

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"env"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","env | sort; sleep 3600"],
   "envFrom":[{"prefix":"CM_","configMapRef":{"name":"app"}},
              {"secretRef":{"name":"nope","optional":true}}],
   "env":[{"name":"MODE","valueFrom":{"configMapKeyRef":{"name":"app","key":"mode"}}},
          {"name":"PASSWORD","valueFrom":{"secretKeyRef":{"name":"creds","key":"password"}}},
          {"name":"CM_level","value":"overridden"},
          {"name":"OPT","valueFrom":{"configMapKeyRef":{"name":"app","key":"none","optional":true}}}]}]}}
JSON
until_equal "the pod reading ConfigMap and Secret runs" Running k get pod env -o jsonpath='{.status.phase}'
until_equal "configMapKeyRef gives the key's value" "MODE=fast" var env MODE
check_equal "secretKeyRef gives the decoded value, not expanded" "PASSWORD=s3cr\$t value" \
        "$(k logs env | grep '^PASSWORD=')"
check_equal "envFrom with a prefix" "CM_mode=fast" "$(k logs env | grep '^CM_mode=')"
check_equal "env overrides envFrom" "CM_level=overridden" "$(k logs env | grep '^CM_level=')"
check_equal "an optional missing key leaves the variable out" "" "$(k logs env | grep '^OPT=')"

cat <<'JSON' | k create -f - >/dev/null
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"waits"},
 "spec":{"terminationGracePeriodSeconds":1,
  "containers":[{"name":"c","image":"busybox","command":["sh","-c","echo got=$LATE; sleep 3600"],
   "env":[{"name":"LATE","valueFrom":{"configMapKeyRef":{"name":"late","key":"v"}}}]}]}}
JSON
until_equal "a missing ConfigMap: CreateContainerConfigError" CreateContainerConfigError \
        k get pod waits -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}'
check_equal "with the kubelet's message" 'configmap "late" not found' \
        "$(k get pod waits -o jsonpath='{.status.containerStatuses[0].state.waiting.message}')"
k create -f - >/dev/null <<'JSON'
{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late"},"data":{"w":"1"}}
JSON
until_equal "a missing key: the kubelet's message" "couldn't find key v in ConfigMap default/late" \
        k get pod waits -o jsonpath='{.status.containerStatuses[0].state.waiting.message}'
k patch configmap late --type merge -p '{"data":{"v":"here"}}' >/dev/null
until_equal "the container starts once the key is there" Running k get pod waits -o jsonpath='{.status.phase}'
until_equal "and reads it" "got=here" k logs waits

check "delete the pods" k delete pod env waits --timeout=30s
tap_done
