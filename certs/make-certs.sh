#!/usr/bin/env bash
# Makes a CA and a serving certificate for the webhook's Service, with OpenSSL, and prints the
# caBundle to put in the webhook configurations.
#
#   certs/make-certs.sh [--service workload-map] [--namespace workload-map] [--out DIR]
#                       [--extra-san DNS:name|IP:addr]... [--days 365] [--reuse-ca]
#
# DIR gets ca.crt, ca.key, tls.crt, tls.key (the names of a kubernetes.io/tls Secret). With
# --reuse-ca, an existing ca.crt/ca.key in DIR signs the new serving certificate (rotation: clients
# that trust the CA keep working).
set -euo pipefail

service=workload-map namespace=workload-map out=certs/out days=365 reuse_ca=0
extra=()
while (($#)); do
  case "$1" in
    --service) service=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --extra-san) extra+=("$2"); shift 2 ;;
    --days) days=$2; shift 2 ;;
    --reuse-ca) reuse_ca=1; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "make-certs.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

mkdir -p "$out"
cd "$out"
umask 077

if [[ $reuse_ca -eq 0 || ! -f ca.key || ! -f ca.crt ]]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.crt \
    -days "$((days * 3))" -subj "/CN=workload-map webhook CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi

sans="DNS:$service,DNS:$service.$namespace,DNS:$service.$namespace.svc,DNS:$service.$namespace.svc.cluster.local"
for san in "${extra[@]}"; do sans+=",$san"; done

# Write to temporary names and rename: a server watching the files never sees half a pair for long.
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout tls.key.new -out tls.csr \
  -subj "/CN=$service.$namespace.svc" 2>/dev/null
openssl x509 -req -in tls.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out tls.crt.new -days "$days" \
  -extfile <(printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature,keyEncipherment\nbasicConstraints=CA:FALSE\n' "$sans") 2>/dev/null
rm -f tls.csr ca.srl
mv tls.key.new tls.key
mv tls.crt.new tls.crt

echo "# serving certificate for: $sans" >&2
echo "# caBundle for the MutatingWebhookConfiguration and ValidatingWebhookConfiguration:" >&2
base64 -w0 ca.crt
echo
