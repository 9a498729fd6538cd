// Package corpus is the single source of truth of the hub's admission
// corpora: manifests the API server (with the hub's webhooks served) must
// reject, each with the message it must reject them with, and manifests it
// must admit. The generator (go run ./tests/e2e/corpus/gen) renders them into
// tests/e2e/c5c3/<suite>/ (Root) as numbered fixture files plus a chainsaw-test.yaml, and
// with --check reports drift and orphan files; the integration test in this
// package applies the same table to a real kube-apiserver.
//
// Fixtures carry no metadata.namespace: chainsaw gives each test an ephemeral
// namespace, and the integration test one namespace per suite. Every fixture
// has its own metadata.name, because all of a suite's steps share that
// namespace.
//
// An update fixture is two files: "<NN>-<name>-base.yaml", created first and
// required to be admitted, then "<NN>-<name>.yaml", applied as a JSON merge
// patch onto it (chainsaw applies an existing object that way too), so a
// field to remove is written as null.
package corpus

import (
	"fmt"
	"sort"
	"strings"
)

// NamespaceBinding stands for the namespace a fixture runs in: chainsaw
// templates it, the integration test substitutes it.
const NamespaceBinding = "($namespace)"

// M is a manifest or a fragment of one.
type M = map[string]any

// Op is how a fixture reaches the API server.
type Op string

const (
	// Create applies Manifest as a new object.
	Create Op = "create"
	// Update creates Base, then applies Manifest as a merge patch onto it.
	Update Op = "update"
)

// A Create fixture with a Base creates Base first (admitted) and then
// Manifest as a second object, for rules about other objects (one
// ControlPlane per namespace).

// Fixture is one admission case.
type Fixture struct {
	// Name is the file stem without its number, a DNS label; the object's
	// metadata.name is derived from it unless the manifest sets one.
	Name string
	// Rule says which rule the fixture exercises and where that rule comes
	// from; it becomes the fixture file's comment.
	Rule string
	Op   Op
	// Base is the object an Update starts from, or a prerequisite object a
	// Create needs (admitted in both cases); nil for none.
	Base M
	// Manifest is the object (Create) or the merge patch (Update).
	Manifest M
	// Message is the text the rejection must contain, verbatim; empty for a
	// fixture that must be admitted.
	Message string
	// Assert, for admitted fixtures, is a subset the stored object must
	// match afterwards (defaults, defaulting webhook); nil for none.
	Assert M
}

// Root is the directory, relative to the repository root, that holds the
// suite directories. It follows the upstream c5c3 layout, where every suite of
// the c5c3 operator lives under tests/e2e/c5c3/ (for example
// tests/e2e/c5c3/invalid-keystoneservice-cr/, docs/reference/keystoneservice.md),
// so the suites port to and from c5c3 unchanged.
const Root = "tests/e2e/c5c3"

// Suite is one corpus directory.
type Suite struct {
	// Dir is the directory under Root, also the chainsaw test name.
	Dir string
	// Description opens the chainsaw test.
	Description string
	// NeedsWebhook says the hub's webhooks must be served for the suite.
	NeedsWebhook bool
	Fixtures     []Fixture
}

// Suites returns every corpus, in a fixed order.
func Suites() []Suite {
	return []Suite{
		invalidKeystoneService(),
		invalidKeystoneApplicationCredential(),
		invalidHubOrders(),
		validHub(),
	}
}

// FileStem is "<NN>-<name>" for the i-th fixture (0-based) of a suite.
func FileStem(i int, f Fixture) string { return fmt.Sprintf("%02d-%s", i+1, f.Name) }

// Validate reports table mistakes: duplicate names, missing messages,
// namespaces, and update fixtures without a base.
func (s Suite) Validate() error {
	var errs []string
	names := map[string]bool{}
	objNames := map[string]bool{}
	for i, f := range s.Fixtures {
		where := fmt.Sprintf("%s/%s", s.Dir, FileStem(i, f))
		if names[f.Name] {
			errs = append(errs, where+": duplicate fixture name")
		}
		names[f.Name] = true
		if f.Rule == "" {
			errs = append(errs, where+": no rule")
		}
		if strings.HasPrefix(s.Dir, "invalid-") && f.Message == "" {
			errs = append(errs, where+": a rejection fixture needs a message")
		}
		if strings.HasPrefix(s.Dir, "valid-") && f.Message != "" {
			errs = append(errs, where+": an admitted fixture has no message")
		}
		if strings.Contains(f.Message, `\\`) || strings.Contains(f.Message, `\'`) {
			errs = append(errs, where+": message cannot be quoted for JMESPath")
		}
		switch f.Op {
		case Create:
		case Update:
			if f.Base == nil {
				errs = append(errs, where+": update fixture without a base")
			}
		default:
			errs = append(errs, where+": unknown op "+string(f.Op))
		}
		for _, m := range []M{f.Base, f.Manifest} {
			if m == nil {
				continue
			}
			md, _ := m["metadata"].(M)
			if _, ok := md["namespace"]; ok {
				errs = append(errs, where+": pins a namespace")
			}
		}
		obj := objectKind(f) + "/" + ObjectName(f)
		if f.Op == Create || f.Base != nil {
			if objNames[obj] {
				errs = append(errs, where+": metadata.name "+obj+" reused")
			}
			objNames[obj] = true
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
}

// ObjectName is the fixture object's metadata.name.
func ObjectName(f Fixture) string {
	m := f.Manifest
	if f.Base != nil {
		m = f.Base
	}
	md, _ := m["metadata"].(M)
	n, _ := md["name"].(string)
	return n
}

func objectKind(f Fixture) string {
	m := f.Manifest
	if f.Base != nil {
		m = f.Base
	}
	k, _ := m["kind"].(string)
	return k
}

// object builds a manifest of a c5c3.io/v1alpha1 kind.
func object(kind, name string, spec M) M {
	return M{
		"apiVersion": "c5c3.io/v1alpha1",
		"kind":       kind,
		"metadata":   M{"name": name},
		"spec":       spec,
	}
}

// patch builds a merge patch for the object named name.
func patch(kind, name string, spec M) M { return object(kind, name, spec) }

// withName returns a copy of m with metadata.name replaced.
func withName(m M, name string) M {
	out := deepCopy(m)
	out["metadata"].(M)["name"] = name
	return out
}

func deepCopy(m M) M {
	out := M{}
	for k, v := range m {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v any) any {
	switch t := v.(type) {
	case M:
		return deepCopy(t)
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = deepCopyValue(t[i])
		}
		return out
	default:
		return v
	}
}

// set returns a copy of m with the value at the dotted path replaced (maps
// are created on the way).
func set(m M, path string, v any) M {
	out := deepCopy(m)
	cur := out
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(M)
		if !ok {
			next = M{}
			cur[p] = next
		}
		cur = next
	}
	cur[parts[len(parts)-1]] = v
	return out
}

// del returns a copy of m without the value at the dotted path.
func del(m M, path string) M {
	out := deepCopy(m)
	cur := out
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := cur[p].(M)
		if !ok {
			return out
		}
		cur = next
	}
	delete(cur, parts[len(parts)-1])
	return out
}
