package clusters

import (
	"errors"
	"strings"
	"testing"
)

// kubeconfig renders a one-context kubeconfig with extra lines under the
// cluster and under the user.
func kubeconfig(server, clusterExtra, userExtra string) []byte {
	return []byte(`apiVersion: v1
kind: Config
current-context: t
contexts:
- name: t
  context: {cluster: c, user: u}
clusters:
- name: c
  cluster:
    server: ` + server + `
    certificate-authority-data: Zm9v
` + clusterExtra + `
users:
- name: u
  user:
` + userExtra + `
`)
}

func TestSanitizeKubeconfig(t *testing.T) {
	const srv = "https://target.example:6443"
	for _, tc := range []struct {
		name, server, cluster, user string
		field                       string // "" accepted
	}{
		{name: "token", server: srv, user: "    token: abc"},
		{name: "client certificate", server: srv, user: "    client-certificate-data: Zm9v\n    client-key-data: Zm9v"},
		{name: "exec", server: srv, user: "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}", field: "users[u].user.exec"},
		{name: "auth-provider", server: srv, user: "    auth-provider: {name: oidc}", field: "users[u].user.auth-provider"},
		{name: "token file", server: srv, user: "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", field: "users[u].user.tokenFile"},
		{name: "client certificate file", server: srv, user: "    client-certificate: /etc/c.crt", field: "users[u].user.client-certificate"},
		{name: "client key file", server: srv, user: "    client-certificate-data: Zm9v\n    client-key: /etc/c.key", field: "users[u].user.client-key"},
		{name: "basic auth", server: srv, user: "    username: a\n    password: b", field: "users[u].user.username"},
		{name: "impersonation", server: srv, user: "    token: abc\n    as: system:admin", field: "users[u].user.as"},
		{name: "CA file", server: srv, cluster: "    certificate-authority: /etc/ca.crt", user: "    token: abc", field: "clusters[c].cluster.certificate-authority"},
		{name: "insecure", server: srv, cluster: "    insecure-skip-tls-verify: true", user: "    token: abc", field: "clusters[c].cluster.insecure-skip-tls-verify"},
		{name: "proxy", server: srv, cluster: "    proxy-url: http://proxy.example:3128", user: "    token: abc", field: "clusters[c].cluster.proxy-url"},
		{name: "plain http", server: "http://target.example:8080", user: "    token: abc", field: "clusters[c].cluster.server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := SanitizeKubeconfig(kubeconfig(tc.server, tc.cluster, tc.user))
			if tc.field == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var rf *RefusedField
			if !errors.As(err, &rf) || rf.Field != tc.field || !errors.Is(err, ErrKubeconfigRefused) {
				t.Fatalf("error %v, want a refusal of %s", err, tc.field)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("message %q does not name %s", err, tc.field)
			}
		})
	}
}

func TestSanitizeKubeconfigStructure(t *testing.T) {
	for name, data := range map[string]string{
		"not yaml":        "{",
		"no context":      "apiVersion: v1\nkind: Config\ncurrent-context: x\n",
		"unknown cluster": "apiVersion: v1\nkind: Config\ncurrent-context: t\ncontexts:\n- name: t\n  context: {cluster: c, user: u}\n",
	} {
		if err := SanitizeKubeconfig([]byte(data)); !errors.Is(err, ErrKubeconfigRefused) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}
