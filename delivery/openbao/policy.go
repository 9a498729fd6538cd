package openbao

import (
	"fmt"
	"strings"
)

// TenantLeaves are the leaf names the hub's backup paths end in, below
// openstack/keystone/<namespace>/<prefix>/service-accounts/ (paths.go):
// KeystoneService credentials, KeystoneApplicationCredential
// application-credential, KeystoneUser password. The tenant policy grants
// exactly these leaves and nothing else (docs/reference/openbao.md).
var TenantLeaves = []string{"credentials", "application-credential", "password"}

// NamespaceTemplate is the ACL policy template that OpenBao resolves to the
// namespace of the ServiceAccount a token was issued to by the Kubernetes
// auth method mounted with accessor (the alias metadata the method records,
// https://openbao.org/docs/concepts/policies/#templated-policies).
func NamespaceTemplate(accessor string) string {
	return "{{identity.entity.aliases." + accessor + ".metadata.service_account_namespace}}"
}

// TenantPolicy renders the ACL policy of the tenant role: a token issued
// through the Kubernetes auth method with accessor to a ServiceAccount of
// namespace N may create, read, update and delete the data and metadata of
// the TenantLeaves under <kvMount>/.../openstack/keystone/N/<prefix>/service-accounts/
// (what ESO's PushSecret, ExternalSecret and teardown need), look up and
// revoke itself (what ESO's store validation and client close need), and
// nothing else: no other namespace, no list, nothing under sys/. The role
// must set token_no_default_policy, since OpenBao's default policy grants
// paths under sys/.
func TenantPolicy(kvMount, accessor string) string {
	var b strings.Builder
	ns := NamespaceTemplate(accessor)
	b.WriteString("# orderhub tenant policy (docs/reference/openbao.md): a namespace's ServiceAccount\n")
	b.WriteString("# reaches only the backup leaves under openstack/keystone/<its namespace>/.\n")
	for _, kind := range []string{"data", "metadata"} {
		for _, leaf := range TenantLeaves {
			fmt.Fprintf(&b, "path %q {\n  capabilities = [\"create\", \"read\", \"update\", \"delete\"]\n}\n",
				fmt.Sprintf("%s/%s/%s/%s/+/service-accounts/%s", kvMount, kind, keystoneRoot, ns, leaf))
		}
	}
	b.WriteString("path \"auth/token/lookup-self\" {\n  capabilities = [\"read\"]\n}\n")
	b.WriteString("path \"auth/token/revoke-self\" {\n  capabilities = [\"update\"]\n}\n")
	return b.String()
}
