#!/usr/bin/env bash
# Puts the certificates made by make-certs.sh on a cluster: the Secret workload-map-tls, and the CA
# as the caBundle of both webhook configurations.
#   certs/install-ca-bundle.sh [--out DIR] [--namespace workload-map]
set -euo pipefail
out=certs/out namespace=workload-map
while (($#)); do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    *) echo "install-ca-bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
kubectl -n "$namespace" create secret tls workload-map-tls --cert "$out/tls.crt" --key "$out/tls.key" \
  --dry-run=client -o yaml | kubectl apply -f -
bundle=$(base64 -w0 "$out/ca.crt")
for kind in mutatingwebhookconfiguration validatingwebhookconfiguration; do
  kubectl patch "$kind" workload-map --type json \
    -p "[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"$bundle\"}]"
done
