package testenv

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// credentialShapes match credentials by their form wherever they appear:
// OpenBao/Vault tokens (hvs./hvb./hvr. service, batch and recovery tokens;
// the s./b. forms of older releases) and JWTs (Kubernetes ServiceAccount
// tokens, the role credential the Kubernetes auth method logs in with).
var credentialShapes = []*regexp.Regexp{
	regexp.MustCompile(`\bhv[sbr]\.[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\b[sb]\.[A-Za-z0-9]{24}\b`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
}

// FindCredentials returns a description of each credential in text: every
// exact occurrence of a value in known (e.g. the stack's OpenBao root token)
// and every match of credentialShapes. A description names what matched and
// where, never the value.
func FindCredentials(where, text string, known ...string) []string {
	var out []string
	for i, k := range known {
		if k != "" && strings.Contains(text, k) {
			out = append(out, fmt.Sprintf("%s: known credential #%d", where, i+1))
		}
	}
	for _, re := range credentialShapes {
		if n := len(re.FindAllStringIndex(text, -1)); n > 0 {
			out = append(out, fmt.Sprintf("%s: %d value(s) shaped like %s", where, n, re.String()))
		}
	}
	return out
}

// AuditCredentials searches the hub's log (logPath; "" skips it), every
// Event (core/v1 and events.k8s.io/v1) in every namespace and every
// ControlPlane condition message for the stack's OpenBao root token and for
// anything shaped like an OpenBao token or a ServiceAccount JWT. It returns
// the findings (empty: none) and an error when something could not be read.
func (s *Stack) AuditCredentials(ctx context.Context, c client.Client, logPath string) ([]string, error) {
	var known []string
	if s.OpenBao != nil {
		known = append(known, s.OpenBao.Token)
	}
	var out []string
	if logPath != "" {
		b, err := os.ReadFile(logPath)
		if err != nil {
			return nil, err
		}
		out = append(out, FindCredentials("hub log "+logPath, string(b), known...)...)
	}
	var core corev1.EventList
	if err := c.List(ctx, &core); err != nil {
		return nil, err
	}
	for _, e := range core.Items {
		out = append(out, FindCredentials("event "+e.Namespace+"/"+e.Name, e.Reason+" "+e.Message, known...)...)
	}
	var events eventsv1.EventList
	if err := c.List(ctx, &events); err != nil {
		return nil, err
	}
	for _, e := range events.Items {
		out = append(out, FindCredentials("event "+e.Namespace+"/"+e.Name, e.Reason+" "+e.Note, known...)...)
	}
	var planes c5c3v1alpha1.ControlPlaneList
	if err := c.List(ctx, &planes); err != nil {
		return nil, err
	}
	for _, p := range planes.Items {
		for _, cond := range p.Status.Conditions {
			out = append(out, FindCredentials("ControlPlane "+p.Namespace+"/"+p.Name+" "+cond.Type, cond.Message, known...)...)
		}
	}
	return out, nil
}

// SecretsHoldingCredentials lists the Secrets in all namespaces except
// those in except whose values contain the stack's OpenBao root token or
// anything shaped like an OpenBao token or a JWT, and every
// ServiceAccount token Secret (type kubernetes.io/service-account-token).
func (s *Stack) SecretsHoldingCredentials(ctx context.Context, c client.Client, except ...string) ([]string, error) {
	var list corev1.SecretList
	if err := c.List(ctx, &list); err != nil {
		return nil, err
	}
	var known []string
	if s.OpenBao != nil {
		known = append(known, s.OpenBao.Token)
	}
	var out []string
	for _, sec := range list.Items {
		if slices.Contains(except, sec.Namespace) {
			continue
		}
		if sec.Type == corev1.SecretTypeServiceAccountToken {
			out = append(out, fmt.Sprintf("Secret %s/%s is a ServiceAccount token", sec.Namespace, sec.Name))
		}
		for k, v := range sec.Data {
			out = append(out, FindCredentials(fmt.Sprintf("Secret %s/%s key %s", sec.Namespace, sec.Name, k), string(v), known...)...)
		}
	}
	return out, nil
}
