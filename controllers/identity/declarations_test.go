package identity

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestDeclarationConflict(t *testing.T) {
	t.Parallel()
	t0 := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	cinder := declaration{"cinder-service", t0, []field{{"description", "Domain for service"}, {"enabled", "true"}}}
	glance := declaration{"glance-service", t1, []field{{"description", "Service domain"}, {"enabled", "true"}}}
	quiet := declaration{"heat-service", t1, []field{{"enabled", "true"}}}
	off := declaration{"nova-service", t1, []field{{"enabled", "false"}}}
	for _, tc := range []struct {
		name string
		self declaration
		all  []declaration
		want []string // substrings of the error; nil: no conflict
	}{
		{"alone", cinder, []declaration{cinder}, nil},
		{"the oldest owns the fields", cinder, []declaration{cinder, glance}, nil},
		{"a younger one with another description", glance, []declaration{cinder, glance},
			[]string{"Domain glance-service", "as Domain cinder-service, the oldest declaration", `description ("Service domain" here, "Domain for service" there)`}},
		{"a younger one leaving the description unset agrees", quiet, []declaration{cinder, quiet}, nil},
		{"a younger one disabling it", off, []declaration{cinder, glance, off}, []string{"enabled (\"false\" here, \"true\" there)", "cinder-service"}},
		{"same age: the name breaks the tie", declaration{"a", t1, glance.fields}, []declaration{{"a", t1, glance.fields}, {"b", t1, cinder.fields}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := declarationConflict("Domain", "domain service", tc.self, tc.all)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("conflict %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no conflict")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDeclaresKeysFoldNames(t *testing.T) {
	t.Parallel()
	a := &kv1.Domain{Spec: kv1.DomainSpec{Name: "Service"}}
	b := &kv1.Domain{Spec: kv1.DomainSpec{Name: "service"}}
	ka, _, _ := domainActuator{}.declares(a)
	kb, _, _ := domainActuator{}.declares(b)
	if ka != kb {
		t.Error("Service and service are one Keystone domain")
	}
	p1 := &kv1.Project{Spec: kv1.ProjectSpec{Name: "p", Domain: ""}}
	p2 := &kv1.Project{Spec: kv1.ProjectSpec{Name: "p", Domain: "Default"}}
	k1, _, _ := projectActuator{}.declares(p1)
	k2, _, _ := projectActuator{}.declares(p2)
	if k1 != k2 {
		t.Error("an empty domain is the default domain")
	}
	g := &kv1.Role{Spec: kv1.RoleSpec{Name: "admin"}}
	d := &kv1.Role{Spec: kv1.RoleSpec{Name: "admin", Domain: "default"}}
	kg, _, _ := roleActuator{}.declares(g)
	kd, _, _ := roleActuator{}.declares(d)
	if kg == kd {
		t.Error("a global role and a role of the default domain are different objects")
	}
}

// The check for other declarations reads them through declaresIndex: it
// finds a declaration of the same Keystone object under another spelling of
// its names, and reads no resource declaring another object (a List of the
// whole kind per apply made the controller's CPU grow with the square of
// its resources).
func TestCheckDeclarationsReadsTheIndex(t *testing.T) {
	t.Parallel()
	s := runtime.NewScheme()
	if err := kv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	t0 := metav1.NewTime(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	project := func(name, keystoneName, domain, description string, created metav1.Time) *kv1.Project {
		return &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", CreationTimestamp: created},
			Spec: kv1.ProjectSpec{Name: keystoneName, Domain: domain, Description: description}}
	}
	owner := project("cinder-service", "service", "Default", "Service project", t0)
	younger := project("glance-service", "Service", "default", "Other text", metav1.NewTime(t0.Add(time.Minute)))
	other := project("nova", "nova", "default", "Other text", metav1.NewTime(t0.Add(time.Minute)))
	act := projectActuator{}
	read := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(owner, younger, other).
		WithIndex(&kv1.Project{}, declaresIndex, declaresIndexer[*kv1.Project](act)).
		WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			err := c.List(ctx, list, opts...)
			read += meta.LenList(list)
			return err
		}}).Build()
	r := &kindActuator[*kv1.Project]{client: c, act: act, opts: Options{RefName: "keystone"}}

	err := r.checkDeclarations(context.Background(), younger)
	if err == nil || !strings.Contains(err.Error(), "cinder-service, the oldest declaration") {
		t.Errorf("younger declaration with another description: %v, want a conflict naming cinder-service", err)
	}
	if read != 2 {
		t.Errorf("the check read %d Projects, want the 2 that declare project service", read)
	}
	if err := r.checkDeclarations(context.Background(), other); err != nil {
		t.Errorf("a project declared once: %v, want no conflict", err)
	}
	if err := r.checkDeclarations(context.Background(), owner); err != nil {
		t.Errorf("the oldest declaration: %v, want no conflict", err)
	}
}
