//go:build integration

package identity

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
)

// Benchmarks against the local Keystone (run with -run '^$' -bench . -benchtime 1x):
//
//   controller  apply the resources, wait until all are Ready; Keystone requests
//               counted by the proxy
//   floor       the create requests alone, sequential, on one HTTP connection
//   job         the openstack CLI, one process per call (the ks-* jobs' way);
//               for N objects a sample of IDENTITY_BENCH_CLI_SAMPLE calls is timed
//               and extrapolated
//
// IDENTITY_BENCH_N sets N for BenchmarkProjects (default 100; the figure is 1000).

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// floorClient is an admin identity client limited to one connection.
func floorClient(b *testing.B) *gophercloud.ServiceClient {
	b.Helper()
	pc, err := openstack.NewClient(stack.Keystone.URL)
	if err != nil {
		b.Fatal(err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 1, 1
	pc.HTTPClient = http.Client{Transport: tr}
	k := stack.Keystone
	if err := openstack.Authenticate(context.Background(), pc, gophercloud.AuthOptions{IdentityEndpoint: k.URL,
		Username: k.AdminUser, Password: k.AdminPassword, DomainName: k.AdminUserDomain,
		Scope: &gophercloud.AuthScope{ProjectName: k.AdminProject, DomainName: k.AdminProjectDomain}}); err != nil {
		b.Fatal(err)
	}
	c, err := openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// runCLI runs one openstack CLI call as the admin.
func runCLI(b *testing.B, args ...string) {
	b.Helper()
	cmd := exec.Command("openstack", args...)
	cmd.Env = append(os.Environ(), stack.Keystone.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("openstack %v: %v\n%s", args, err, out)
	}
}

func waitAllReady(b *testing.B, objs []kobj) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Minute)
	for _, o := range objs {
		for {
			var ready bool
			if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(o), o); err == nil {
				for _, c := range o.KeystoneStatus().Conditions {
					ready = c.Type == kv1.ConditionReady && c.Status == metav1.ConditionTrue && c.ObservedGeneration == o.GetGeneration()
				}
			}
			if ready {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s not Ready", o.GetName())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

func report(b *testing.B, n int, ctrlDur time.Duration, reqs int, floorDur, cliDur time.Duration) {
	b.ReportMetric(float64(ctrlDur.Milliseconds()), "ms-apply-ready")
	b.ReportMetric(float64(reqs)/float64(n), "req/object")
	b.ReportMetric(float64(floorDur.Milliseconds()), "ms-floor")
	b.ReportMetric(float64(cliDur.Milliseconds()), "ms-cli")
	b.ReportMetric(float64(ctrlDur)/float64(floorDur), "x-floor")
	b.ReportMetric(float64(cliDur)/float64(ctrlDur), "cli/controller")
	b.Logf("N=%d controller %v (%d Keystone requests, %.1f/object), floor %v, CLI %v: controller = %.2f× floor, CLI = %.1f× controller",
		n, ctrlDur, reqs, float64(reqs)/float64(n), floorDur, cliDur, float64(ctrlDur)/float64(floorDur), float64(cliDur)/float64(ctrlDur))
}

// BenchmarkProjects: N Projects in the default domain.
func BenchmarkProjects(b *testing.B) {
	n := envInt("IDENTITY_BENCH_N", 100)
	sample := min(envInt("IDENTITY_BENCH_CLI_SAMPLE", 10), n)
	for i := 0; i < b.N; i++ {
		tag := fmt.Sprintf("bp%d-%d", i, time.Now().UnixNano()%1e9)
		objs := make([]kobj, n)
		for j := range objs {
			objs[j] = &kv1.Project{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d", tag, j), Namespace: testNS},
				Spec: kv1.ProjectSpec{Name: fmt.Sprintf("%s-%d", tag, j)}}
		}
		before := proxy.snapshot()["total"]
		start := time.Now()
		for _, o := range objs {
			if err := k8s.Create(context.Background(), o); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-kube-create")
		waitAllReady(b, objs)
		ctrlDur := time.Since(start)
		reqs := proxy.snapshot()["total"] - before

		fc := floorClient(b)
		start = time.Now()
		for j := 0; j < n; j++ {
			if _, err := projects.Create(context.Background(), fc, projects.CreateOpts{Name: fmt.Sprintf("%s-floor-%d", tag, j), DomainID: keystone.DefaultDomainID}).Extract(); err != nil {
				b.Fatal(err)
			}
		}
		floorDur := time.Since(start)

		start = time.Now()
		for j := 0; j < sample; j++ {
			runCLI(b, "project", "create", "--or-show", "--domain", "default", fmt.Sprintf("%s-cli-%d", tag, j))
		}
		cliDur := time.Since(start) * time.Duration(n) / time.Duration(sample)
		report(b, n, ctrlDur, reqs, floorDur, cliDur)
		for _, o := range objs {
			_ = k8s.Delete(context.Background(), o)
		}
	}
}

// BenchmarkCinderSet: the 11 resources of config/samples/identity/cinder.yaml, with Keystone names made unique per run.
func BenchmarkCinderSet(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sfx := fmt.Sprintf("b%d%d", i, time.Now().UnixNano()%1e6)
		objs := cinderSet(b, sfx)
		before := proxy.snapshot()["total"]
		start := time.Now()
		for _, o := range objs {
			if err := k8s.Create(context.Background(), o); err != nil {
				b.Fatal(err)
			}
		}
		var kobjs []kobj
		for _, o := range objs {
			if k, ok := o.(kobj); ok {
				kobjs = append(kobjs, k)
			}
		}
		waitAllReady(b, kobjs)
		ctrlDur := time.Since(start)
		reqs := proxy.snapshot()["total"] - before
		floorDur := cinderFloor(b, sfx+"f")
		cliDur := cinderCLI(b, sfx+"c")
		report(b, len(kobjs), ctrlDur, reqs, floorDur, cliDur)
	}
}

// cinderSet is the sample set with every Keystone and Kubernetes name suffixed.
func cinderSet(b *testing.B, sfx string) []client.Object {
	objs := loadSamples(b)
	for _, o := range objs {
		o.SetNamespace(testNS)
		o.SetName(o.GetName() + "-" + sfx)
		switch v := o.(type) {
		case *kv1.Domain:
			v.Spec.Name += sfx
		case *kv1.Project:
			v.Spec.Name += sfx
			v.Spec.Domain += sfx
		case *kv1.Role:
			v.Spec.Name += sfx
		case *kv1.User:
			v.Spec.Name += sfx
			v.Spec.Domain += sfx
			v.Spec.DefaultProject.Name += sfx
			v.Spec.DefaultProject.Domain += sfx
			v.Spec.PasswordSecret.Name += "-" + sfx
		case *kv1.RoleAssignment:
			v.Spec.Role.Name += sfx
			v.Spec.User.Name += sfx
			v.Spec.User.Domain += sfx
			v.Spec.Project.Name += sfx
			v.Spec.Project.Domain += sfx
		case *kv1.Service:
			v.Spec.Name += sfx
			v.Spec.Type += sfx
		case *kv1.Endpoint:
			v.Spec.Service.Name += sfx
			v.Spec.Service.Type += sfx
		}
	}
	return objs
}

// cinderFloor creates the same Keystone objects with the minimum of requests,
// sequentially on one connection (IDs taken from the create responses).
func cinderFloor(b *testing.B, sfx string) time.Duration {
	c := floorClient(b)
	ctx := context.Background()
	must := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	start := time.Now()
	d, err := domains.Create(ctx, c, domains.CreateOpts{Name: "service" + sfx, Description: "Domain for service"}).Extract()
	must(err)
	p, err := projects.Create(ctx, c, projects.CreateOpts{Name: "service" + sfx, DomainID: d.ID}).Extract()
	must(err)
	var roleIDs []string
	for _, rn := range []string{"admin", "service", "member"} {
		r, err := roles.Create(ctx, c, roles.CreateOpts{Name: rn + sfx}).Extract()
		must(err)
		roleIDs = append(roleIDs, r.ID)
	}
	u, err := users.Create(ctx, c, users.CreateOpts{Name: "cinder" + sfx, DomainID: d.ID, DefaultProjectID: p.ID, Password: "x"}).Extract()
	must(err)
	for _, r := range roleIDs {
		must(roles.Assign(ctx, c, r, roles.AssignOpts{UserID: u.ID, ProjectID: p.ID}).ExtractErr())
	}
	s, err := services.Create(ctx, c, services.CreateOpts{Name: "cinderv3" + sfx, Type: "volumev3" + sfx}).Extract()
	must(err)
	for _, iface := range []string{"admin", "internal", "public"} {
		_, err := endpointsCreate(ctx, c, s.ID, iface)
		must(err)
	}
	return time.Since(start)
}

func endpointsCreate(ctx context.Context, c *gophercloud.ServiceClient, sid, iface string) (string, error) {
	var r struct {
		Endpoint struct {
			ID string `json:"id"`
		} `json:"endpoint"`
	}
	body, _ := endpointCreate{Interface: iface, URL: "http://cinder/v3", ServiceID: sid, RegionID: stack.Keystone.Region, Enabled: true}.ToEndpointCreateMap()
	_, err := c.Post(ctx, c.ServiceURL("endpoints"), body, &r, nil)
	return r.Endpoint.ID, err
}

// cinderCLI runs the openstack CLI calls the three ks-* jobs make for the set
// (one process per call, --or-show where the jobs use it).
func cinderCLI(b *testing.B, sfx string) time.Duration {
	start := time.Now()
	dom, proj, user := "service"+sfx, "service"+sfx, "cinder"+sfx
	runCLI(b, "domain", "create", "--or-show", "--description", "Domain for service", dom)
	runCLI(b, "project", "create", "--or-show", "--domain", dom, "--description", "Service Project", proj)
	for _, r := range []string{"admin", "service", "member"} {
		runCLI(b, "role", "create", "--or-show", r+sfx)
	}
	runCLI(b, "user", "create", "--or-show", "--domain", dom, "--project", proj, "--project-domain", dom, "--password", "x", user)
	for _, r := range []string{"admin", "service", "member"} {
		runCLI(b, "role", "add", "--project", proj, "--project-domain", dom, "--user", user, "--user-domain", dom, r+sfx)
	}
	runCLI(b, "service", "create", "--name", "cinderv3"+sfx, "volumev3"+sfx)
	for _, iface := range []string{"admin", "internal", "public"} {
		runCLI(b, "endpoint", "create", "--region", stack.Keystone.Region, "volumev3"+sfx, iface, "http://cinder/v3")
	}
	return time.Since(start)
}
