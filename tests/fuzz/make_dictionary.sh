#!/usr/bin/env bash
# A libFuzzer dictionary of what the catalog and the policy read, so that mutations land on keys the code looks
# for: the field names and quoted keys in the definitions' jq paths, the keys of the Karta and policy schemas,
# the labels and annotations the profiles write, and the AdmissionReview's own keys.
# Usage: tests/fuzz/make_dictionary.sh > catalog.dict
set -euo pipefail
cd "$(dirname "$0")/../.."
{
  # .field steps of jq paths and "quoted" keys inside them
  grep -ohE '\.[A-Za-z_][A-Za-z0-9_]*' definitions/*.yaml | sed 's/^\.//'
  grep -ohE '\["[^"]+"\]' definitions/*.yaml | sed -E 's/^\["(.*)"\]$/\1/'
  # YAML keys of the definitions and the policy
  grep -ohE '^[[:space:]-]*[A-Za-z][A-Za-z0-9_.\/-]*:' definitions/*.yaml manifests/base/policy.yaml |
    sed -E 's/^[[:space:]-]*//; s/:$//'
  # template variables and values the code compares against
  grep -ohE '\{\{[a-zA-Z]+\}\}' manifests/base/policy.yaml
  printf '%s\n' apiVersion kind request response uid operation object oldObject namespace ownerReferences \
    controller CREATE UPDATE DELETE admission.k8s.io/v1 AdmissionReview run.ai/v1alpha1 Karta \
    workload-map.io/v1alpha1 Policy podTemplateSpecPath podSpecPath fragmentedPodSpecDefinition
} | LC_ALL=C sort -u | while IFS= read -r word; do
  [[ -n $word && ${#word} -le 64 ]] || continue
  escaped=${word//\\/\\\\}
  escaped=${escaped//\"/\\\"}
  printf '"%s"\n' "$escaped"
done
