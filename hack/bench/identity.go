package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	orderhubKeystoneAPI = "keystone.osh.openstack.org/v1alpha1"
	korcAPI             = "openstack.k-orc.cloud/v1alpha1"
	// korcCloudsSecret holds the clouds.yaml K-ORC authenticates with
	// (cloud "admin", through the Keystone counting proxy).
	korcCloudsSecret = "bench-clouds"
	// cinderObjects is the size of config/samples/identity/cinder.yaml.
	cinderObjects = 11
)

// runIdentitySet times one identity set: the floor, orderhub, K-ORC and the
// openstack CLI.
func (b *bench) runIdentitySet(ctx context.Context, set string, rep int) ([]result, error) {
	tag := fmt.Sprintf("r%dn%d%s", rep, b.n, b.runID)
	steps := []step{
		{runnerFloor, func() (result, error) { return b.projectsFloor(ctx, tag+"f", false) }},
		{runnerLookupFloor, func() (result, error) { return b.projectsFloor(ctx, tag+"l", true) }},
	}
	cli := b.projectsCLI
	if set == setCinder {
		steps = []step{{runnerFloor, func() (result, error) { return b.cinderFloor(ctx, tag+"f") }}}
		cli = b.cinderCLI
	}
	return b.runSteps(append(steps,
		step{runnerOrderhub, func() (result, error) {
			oh, err := b.orderhubIdentityRun(set, tag+"o")
			if err != nil {
				return result{Set: set, Runner: runnerOrderhub}, err
			}
			return b.runController(ctx, oh)
		}},
		step{runnerKORC, func() (result, error) { return b.runController(ctx, b.korcRun(set, tag+"k")) }},
		step{runnerCLI, func() (result, error) { return cli(ctx, tag+"c") }},
	))
}

// keystoneProxyEnv is the admin's OS_* environment with the auth URL at the
// Keystone counting proxy.
func (b *bench) keystoneProxyEnv() []string {
	var env []string
	for _, kv := range b.stack.Keystone.Env() {
		if strings.HasPrefix(kv, "OS_AUTH_URL=") {
			kv = "OS_AUTH_URL=" + b.keystoneProxy.URL + "/v3"
		}
		env = append(env, kv)
	}
	return env
}

// orderhubIdentityRun: `orderhub identity` for the set's namespace.
func (b *bench) orderhubIdentityRun(set, tag string) (controllerRun, error) {
	var objs []*unstructured.Unstructured
	switch set {
	case setProjects:
		for i := 0; i < b.n; i++ {
			name := fmt.Sprintf("%s-%d", tag, i)
			objs = append(objs, obj(orderhubKeystoneAPI, "Project", name, map[string]any{"name": name}))
		}
	case setCinder:
		var err error
		if objs, err = b.orderhubCinderSet(tag); err != nil {
			return controllerRun{}, err
		}
	}
	// deletionPolicy delete (the default is retain): the Keystone objects go
	// with the resources, as K-ORC's managed objects do, so deletion times compare.
	for _, o := range objs {
		_ = unstructured.SetNestedField(o.Object, "delete", "spec", "deletionPolicy")
	}
	return controllerRun{
		set: set, runner: runnerOrderhub, objects: objs, backend: b.keystoneProxy, resyncs: true,
		ready: conditionTrue("Ready", true),
		prepare: func(ctx context.Context, ns string) error {
			return b.createSecret(ctx, ns, "cinder-keystone-user-"+tag, map[string]string{"OS_PASSWORD": "bench-password"})
		},
		start: func(ctx context.Context, ns, kubeconfig string) (*process, error) {
			port, err := freePort()
			if err != nil {
				return nil, err
			}
			args := []string{"identity", "--namespace=" + ns, "--leader-elect=false", "--metrics-bind-address=0",
				"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port), "--keystone-ref-name=keystone"}
			if b.resync > 0 {
				args = append(args, "--resync-period="+b.resync.String())
			}
			args = append(args, b.concurrencyArgs()...)
			return startProcess(ctx, ns+"-orderhub-identity", b.logDir, b.orderhub, args,
				append(b.keystoneProxyEnv(), "KUBECONFIG="+kubeconfig),
				fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		},
	}, nil
}

// orderhubCinderSet is config/samples/identity/cinder.yaml with every
// Keystone and Kubernetes name suffixed, as the identity benchmark does.
func (b *bench) orderhubCinderSet(sfx string) ([]*unstructured.Unstructured, error) {
	raw, err := os.ReadFile(filepath.Join(b.repo, "config", "samples", "identity", "cinder.yaml"))
	if err != nil {
		return nil, err
	}
	docs := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	suffix := map[string][][]string{
		"Domain":         {{"name"}},
		"Project":        {{"name"}, {"domain"}},
		"Role":           {{"name"}},
		"User":           {{"name"}, {"domain"}, {"defaultProject", "name"}, {"defaultProject", "domain"}},
		"RoleAssignment": {{"role", "name"}, {"user", "name"}, {"user", "domain"}, {"project", "name"}, {"project", "domain"}},
		"Service":        {{"name"}, {"type"}},
		"Endpoint":       {{"service", "name"}, {"service", "type"}},
	}
	var out []*unstructured.Unstructured
	for {
		doc, err := docs.Read()
		if err != nil {
			break
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, err
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetName(u.GetName() + "-" + sfx)
		for _, path := range suffix[u.GetKind()] {
			full := append([]string{"spec"}, path...)
			if v, ok, _ := unstructured.NestedString(m, full...); ok {
				_ = unstructured.SetNestedField(m, v+sfx, full...)
			}
		}
		if u.GetKind() == "User" {
			_ = unstructured.SetNestedField(m, "cinder-keystone-user-"+sfx, "spec", "passwordSecret", "name")
		}
		out = append(out, u)
	}
	if len(out) != cinderObjects {
		return nil, fmt.Errorf("cinder.yaml: %d objects, want %d", len(out), cinderObjects)
	}
	return out, nil
}

// korcRun: the K-ORC v2.6.0 manager. For the Cinder set it gets the kinds it
// has (no RoleAssignment kind): 10 objects.
func (b *bench) korcRun(set, tag string) controllerRun {
	cred := map[string]any{"secretName": korcCloudsSecret, "cloudName": "admin"}
	managed := func(resource map[string]any) map[string]any {
		return map[string]any{"cloudCredentialsRef": cred, "managementPolicy": "managed", "resource": resource}
	}
	var objs []*unstructured.Unstructured
	switch set {
	case setProjects:
		for i := 0; i < b.n; i++ {
			name := fmt.Sprintf("%s-%d", tag, i)
			objs = append(objs, obj(korcAPI, "Project", name, managed(map[string]any{"name": name})))
		}
	case setCinder:
		objs = append(objs,
			obj(korcAPI, "Domain", "service", managed(map[string]any{"name": "service" + tag, "description": "Domain for service"})),
			obj(korcAPI, "Project", "service", managed(map[string]any{"name": "service" + tag, "domainRef": "service"})))
		for _, r := range []string{"admin", "service", "member"} {
			objs = append(objs, obj(korcAPI, "Role", r, managed(map[string]any{"name": r + tag})))
		}
		objs = append(objs,
			obj(korcAPI, "User", "cinder", managed(map[string]any{"name": "cinder" + tag, "domainRef": "service",
				"defaultProjectRef": "service", "passwordRef": "cinder-password"})),
			obj(korcAPI, "Service", "cinderv3", managed(map[string]any{"name": "cinderv3" + tag, "type": "volumev3" + tag})))
		for _, iface := range []string{"admin", "internal", "public"} {
			objs = append(objs, obj(korcAPI, "Endpoint", "cinderv3-"+iface,
				managed(map[string]any{"interface": iface, "url": "http://cinder/v3", "serviceRef": "cinderv3"})))
		}
	}
	k := *b.stack.Keystone
	k.URL = b.keystoneProxy.URL + "/v3"
	return controllerRun{
		set: set, runner: runnerKORC, objects: objs, backend: b.keystoneProxy,
		ready: conditionTrue("Available", false),
		prepare: func(ctx context.Context, ns string) error {
			if err := b.createSecret(ctx, ns, korcCloudsSecret, map[string]string{"clouds.yaml": k.CloudsYAMLDocument("admin")}); err != nil {
				return err
			}
			return b.createSecret(ctx, ns, "cinder-password", map[string]string{"password": "bench-password"})
		},
		start: func(ctx context.Context, ns, kubeconfig string) (*process, error) {
			port, err := freePort()
			if err != nil {
				return nil, err
			}
			return startProcess(ctx, ns+"-k-orc", b.logDir, filepath.Join(b.stack.ToolPath("ORDERHUB_KORC_DIR"), "manager"),
				[]string{"--kubeconfig=" + kubeconfig, "--metrics-bind-address=0", "--leader-elect=false",
					"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(port)},
				nil, fmt.Sprintf("http://127.0.0.1:%d/readyz", port))
		},
	}
}

// floorClient is an admin identity client, directly to Keystone, limited to
// one connection.
func (b *bench) floorClient(ctx context.Context) (*gophercloud.ServiceClient, error) {
	k := b.stack.Keystone
	pc, err := openstack.NewClient(k.URL)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxConnsPerHost, tr.MaxIdleConnsPerHost = 1, 1
	pc.HTTPClient = http.Client{Transport: tr}
	if err := openstack.Authenticate(ctx, pc, gophercloud.AuthOptions{IdentityEndpoint: k.URL,
		Username: k.AdminUser, Password: k.AdminPassword, DomainName: k.AdminUserDomain,
		Scope: &gophercloud.AuthScope{ProjectName: k.AdminProject, DomainName: k.AdminProjectDomain}}); err != nil {
		return nil, err
	}
	return openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{})
}

// projectsFloor: N project creates, sequential, on one connection. With
// lookup each create follows the filtered GET K-ORC sends first
// (GET /v3/projects?name=…&domain_id=…), 2N requests; orderhub creates first
// (docs/identity.md "Create or adopt").
func (b *bench) projectsFloor(ctx context.Context, tag string, lookup bool) (result, error) {
	res := result{Set: setProjects, Runner: runnerFloor, Objects: b.n, Metrics: map[string]float64{}}
	if lookup {
		res.Runner = runnerLookupFloor
	}
	c, err := b.floorClient(ctx)
	if err != nil {
		return res, err
	}
	start := time.Now()
	for i := 0; i < b.n; i++ {
		name := fmt.Sprintf("%s-%d", tag, i)
		if lookup {
			if _, err := projects.List(c, projects.ListOpts{Name: name, DomainID: "default"}).AllPages(ctx); err != nil {
				return res, err
			}
		}
		if _, err := projects.Create(ctx, c, projects.CreateOpts{Name: name, DomainID: "default"}).Extract(); err != nil {
			return res, err
		}
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	res.Metrics[mBackendApply] = 1
	if lookup {
		res.Metrics[mBackendApply] = 2
	}
	return res, nil
}

// cinderFloor creates the Cinder set's Keystone objects with the fewest
// requests (14: IDs taken from the create responses), sequentially on one
// connection.
func (b *bench) cinderFloor(ctx context.Context, sfx string) (result, error) {
	res := result{Set: setCinder, Runner: runnerFloor, Objects: cinderObjects, Metrics: map[string]float64{}}
	c, err := b.floorClient(ctx)
	if err != nil {
		return res, err
	}
	start := time.Now()
	reqs := 0
	err = func() error {
		d, err := domains.Create(ctx, c, domains.CreateOpts{Name: "service" + sfx, Description: "Domain for service"}).Extract()
		if err != nil {
			return err
		}
		p, err := projects.Create(ctx, c, projects.CreateOpts{Name: "service" + sfx, DomainID: d.ID}).Extract()
		if err != nil {
			return err
		}
		reqs += 2
		var roleIDs []string
		for _, rn := range []string{"admin", "service", "member"} {
			r, err := roles.Create(ctx, c, roles.CreateOpts{Name: rn + sfx}).Extract()
			if err != nil {
				return err
			}
			roleIDs = append(roleIDs, r.ID)
			reqs++
		}
		u, err := users.Create(ctx, c, users.CreateOpts{Name: "cinder" + sfx, DomainID: d.ID, DefaultProjectID: p.ID, Password: "x"}).Extract()
		if err != nil {
			return err
		}
		reqs++
		for _, r := range roleIDs {
			if err := roles.Assign(ctx, c, r, roles.AssignOpts{UserID: u.ID, ProjectID: p.ID}).ExtractErr(); err != nil {
				return err
			}
			reqs++
		}
		s, err := services.Create(ctx, c, services.CreateOpts{Name: "cinderv3" + sfx, Type: "volumev3" + sfx}).Extract()
		if err != nil {
			return err
		}
		reqs++
		for _, iface := range []gophercloud.Availability{gophercloud.AvailabilityAdmin, gophercloud.AvailabilityInternal, gophercloud.AvailabilityPublic} {
			if _, err := endpoints.Create(ctx, c, endpoints.CreateOpts{Availability: iface, URL: "http://cinder/v3", ServiceID: s.ID,
				Region: b.stack.Keystone.Region}).Extract(); err != nil {
				return err
			}
			reqs++
		}
		return nil
	}()
	if err != nil {
		return res, err
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	res.Metrics[mBackendApply] = float64(reqs) / cinderObjects
	return res, nil
}

// runCLI runs one openstack CLI call as the admin, directly to Keystone.
func (b *bench) runCLI(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "openstack", args...)
	cmd.Env = append(os.Environ(), b.stack.Keystone.Env()...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("openstack %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// projectsCLI: `openstack project create`, one process per call, as the
// ks-* jobs run it; a sample of cliSample calls is timed and extrapolated to N.
func (b *bench) projectsCLI(ctx context.Context, tag string) (result, error) {
	res := result{Set: setProjects, Runner: runnerCLI, Objects: b.n, Metrics: map[string]float64{}}
	sample := min(b.cliSample, b.n)
	start := time.Now()
	for i := 0; i < sample; i++ {
		if err := b.runCLI(ctx, "project", "create", "--or-show", "--domain", "default", fmt.Sprintf("%s-%d", tag, i)); err != nil {
			return res, err
		}
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds() * float64(b.n) / float64(sample)
	if sample < b.n {
		res.Note = fmt.Sprintf("%d calls timed, extrapolated", sample)
	}
	return res, nil
}

// cinderCLI runs the openstack CLI calls the three ks-* jobs make for the
// Cinder set (one process per call, --or-show where the jobs use it).
func (b *bench) cinderCLI(ctx context.Context, sfx string) (result, error) {
	res := result{Set: setCinder, Runner: runnerCLI, Objects: cinderObjects, Metrics: map[string]float64{}}
	dom, proj, user := "service"+sfx, "service"+sfx, "cinder"+sfx
	calls := [][]string{
		{"domain", "create", "--or-show", "--description", "Domain for service", dom},
		{"project", "create", "--or-show", "--domain", dom, "--description", "Service Project", proj},
	}
	for _, r := range []string{"admin", "service", "member"} {
		calls = append(calls, []string{"role", "create", "--or-show", r + sfx})
	}
	calls = append(calls, []string{"user", "create", "--or-show", "--domain", dom, "--project", proj, "--project-domain", dom, "--password", "x", user})
	for _, r := range []string{"admin", "service", "member"} {
		calls = append(calls, []string{"role", "add", "--project", proj, "--project-domain", dom, "--user", user, "--user-domain", dom, r + sfx})
	}
	calls = append(calls, []string{"service", "create", "--name", "cinderv3" + sfx, "volumev3" + sfx})
	for _, iface := range []string{"admin", "internal", "public"} {
		calls = append(calls, []string{"endpoint", "create", "--region", b.stack.Keystone.Region, "volumev3" + sfx, iface, "http://cinder/v3"})
	}
	start := time.Now()
	for _, c := range calls {
		if err := b.runCLI(ctx, c...); err != nil {
			return res, err
		}
	}
	res.Metrics[mApplyReady] = time.Since(start).Seconds()
	return res, nil
}
