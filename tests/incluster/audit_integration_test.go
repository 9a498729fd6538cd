//go:build integration

package incluster

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/c5c3/orderhub/internal/testenv"
)

// auditEvent is the part of an audit.k8s.io/v1 Event read here.
type auditEvent struct {
	AuditID    string `json:"auditID"`
	Stage      string `json:"stage"`
	Verb       string `json:"verb"`
	RequestURI string `json:"requestURI"`
	User       struct {
		Username string   `json:"username"`
		Groups   []string `json:"groups"`
	} `json:"user"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		APIGroup    string `json:"apiGroup"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// permission is what one request needs: "<verb> <group>/<resource>[/<subresource>]",
// core as group "core"; a non-resource request is "<verb> <path>".
func (e auditEvent) permission() string {
	if e.ObjectRef == nil || e.ObjectRef.Resource == "" {
		path, _, _ := strings.Cut(e.RequestURI, "?")
		return e.Verb + " " + path
	}
	g := e.ObjectRef.APIGroup
	if g == "" {
		g = "core"
	}
	r := e.ObjectRef.Resource
	if e.ObjectRef.Subresource != "" {
		r += "/" + e.ObjectRef.Subresource
	}
	return e.Verb + " " + g + "/" + r
}

// leastPrivilege reads every API call the controllers' ServiceAccounts made
// from the apiserver's audit log (testenv.Options.AuditLog): none was refused
// (403), none was made as system:masters, and it reports, per controller, the
// call count and what the chart's roles (the rendered manifest) grant beyond
// the permissions used, to the test log and to least-privilege.txt in the
// stack's folder.
func leastPrivilege(t *testing.T, st *testenv.Stack, manifest string) {
	t.Helper()
	f, err := os.Open(st.Kube.AuditLog)
	if err != nil {
		t.Fatalf("the apiserver's audit log: %v", err)
	}
	defer f.Close()
	// The last stage of each request (a watch has ResponseStarted, and
	// ResponseComplete once it ends).
	byID := map[string]auditEvent{}
	var order []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log line %q: %v", sc.Text(), err)
		}
		if _, seen := byID[e.AuditID]; !seen {
			order = append(order, e.AuditID)
		}
		byID[e.AuditID] = e
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	granted := grantedBySA(t, manifest)
	var report strings.Builder
	fmt.Fprintf(&report, "API calls of the controllers' ServiceAccounts (audit log %s, %d requests in all)\n", st.Kube.AuditLog, len(order))
	// Two kinds of "not used" are not simply removable: an informer's
	// initial list is a watch with sendInitialEvents here (audited as watch;
	// a client falls back to a plain list where streaming is off), and a
	// server-side apply that creates an object is audited as patch.
	fmt.Fprintf(&report, "Caveats: an informer's initial list is a streaming watch here (audited as watch; clients fall back to list); a server-side apply that creates an object is audited as patch.\n")
	for _, c := range []string{"hub", "identity", "topology"} {
		sa := release + "-" + c
		user := "system:serviceaccount:" + releaseNS + ":" + sa
		calls, refused := 0, 0
		used := map[string]int{}
		for _, id := range order {
			e := byID[id]
			if e.User.Username != user {
				continue
			}
			calls++
			used[e.permission()]++
			for _, g := range e.User.Groups {
				if g == "system:masters" {
					t.Errorf("%s made a request as system:masters: %s %s", user, e.Verb, e.RequestURI)
				}
			}
			if e.ResponseStatus != nil && e.ResponseStatus.Code == 403 {
				refused++
				t.Errorf("%s was refused: %s %s (%s)", user, e.Verb, e.RequestURI, e.permission())
			}
		}
		if calls == 0 {
			t.Errorf("the audit log has no request of %s", user)
		}
		var unused, notFromChart []string
		for p := range granted[sa] {
			if used[p] == 0 {
				unused = append(unused, p)
			}
		}
		for p := range used {
			if !granted[sa][p] {
				notFromChart = append(notFromChart, p)
			}
		}
		sort.Strings(unused)
		sort.Strings(notFromChart)
		var usedList []string
		for p, n := range used {
			usedList = append(usedList, fmt.Sprintf("%s (%d)", p, n))
		}
		sort.Strings(usedList)
		fmt.Fprintf(&report, "\n%s: %d calls, %d refused (403)\n  used (%d):\n    %s\n  granted by the chart's roles but not used (%d):\n    %s\n  used, granted by the cluster's default roles (discovery, basic-user), not the chart's (%d):\n    %s\n",
			user, calls, refused, len(used), strings.Join(usedList, "\n    "), len(unused), strings.Join(unused, "\n    "),
			len(notFromChart), strings.Join(notFromChart, "\n    "))
	}
	path := filepath.Join(st.Dir, "least-privilege.txt")
	if err := os.WriteFile(path, []byte(report.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("least privilege (%s):\n%s", path, report.String())
}

// grantedBySA expands the chart's Roles and ClusterRoles, by the
// ServiceAccount their bindings name, into permissions ("<verb>
// <group>/<resource>"; a rule limited to resourceNames or to the release
// namespace counts as the permission).
func grantedBySA(t *testing.T, manifest string) map[string]map[string]bool {
	t.Helper()
	type doc struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Rules    []rbacv1.PolicyRule `json:"rules"`
		RoleRef  rbacv1.RoleRef      `json:"roleRef"`
		Subjects []rbacv1.Subject    `json:"subjects"`
	}
	rules := map[string][]rbacv1.PolicyRule{} // by "<kind>/<name>"
	var bindings []doc
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	for {
		var d doc
		if err := dec.Decode(&d); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the release's manifest: %v", err)
		}
		switch d.Kind {
		case "Role", "ClusterRole":
			rules[d.Kind+"/"+d.Metadata.Name] = d.Rules
		case "RoleBinding", "ClusterRoleBinding":
			bindings = append(bindings, d)
		}
	}
	out := map[string]map[string]bool{}
	for _, b := range bindings {
		for _, s := range b.Subjects {
			if s.Kind != "ServiceAccount" {
				continue
			}
			if out[s.Name] == nil {
				out[s.Name] = map[string]bool{}
			}
			for _, r := range rules[b.RoleRef.Kind+"/"+b.RoleRef.Name] {
				for _, v := range r.Verbs {
					for _, u := range r.NonResourceURLs {
						out[s.Name][v+" "+u] = true
					}
					for _, g := range r.APIGroups {
						if g == "" {
							g = "core"
						}
						for _, res := range r.Resources {
							out[s.Name][v+" "+g+"/"+res] = true
						}
					}
				}
			}
		}
	}
	if len(out[release+"-hub"]) == 0 {
		t.Fatalf("the release's manifest binds no role to %s-hub", release)
	}
	return out
}
