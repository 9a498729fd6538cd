package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	bao "github.com/openbao/openbao/api/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/korc"
)

// Report is the soak's result.
type Report struct {
	Seed          int64            `json:"randomSeed"`
	Duration      string           `json:"duration"`
	FaultsPlanned int              `json:"faultsPlanned"`
	Kinds         []string         `json:"kinds"`
	Started       time.Time        `json:"started"`
	Ended         time.Time        `json:"ended"`
	Faults        []FaultRecord    `json:"faults"`
	Consumers     []ConsumerReport `json:"consumers"`
	// Pods are the consumer pods' workloads (Config.Pods).
	Pods        []PodReport        `json:"pods,omitempty"`
	Credentials []CredentialReport `json:"credentials"`
	// LeakedApplicationCredentials and LeakedUsers: Keystone objects no
	// status references, after convergence.
	LeakedApplicationCredentials []string `json:"leakedApplicationCredentials"`
	LeakedUsers                  []string `json:"leakedUsers"`
	// UnownedOpenBaoPaths: KV paths under no live order, after convergence.
	UnownedOpenBaoPaths []string `json:"unownedOpenBaoPaths"`
	// After deleting every order: what is left.
	DeletedIn               string   `json:"deletedIn,omitempty"`
	FinalizersLeft          []string `json:"finalizersLeft"`
	UsersLeftAfterDelete    []string `json:"usersLeftAfterDelete"`
	OpenBaoLeftAfterDelete  []string `json:"openBaoPathsLeftAfterDelete"`
	ConvergedAfterLastFault string   `json:"convergedAfterLastFault,omitempty"`
	ConvergedSeconds        float64  `json:"convergedSeconds,omitempty"`
	Errors                  []string `json:"errors,omitempty"`
}

// ConsumerReport is one delivered Secret's consumer.
type ConsumerReport struct {
	Secret   string `json:"secret"`
	Kind     string `json:"kind"`
	Rotates  bool   `json:"rotates"`
	Attempts int    `json:"attempts"`
	// Rejected counts Keystone's refusals and unusable Secrets;
	// RejectedOutsideWindow those of a password outside the rotation's
	// re-read window (all of them for a credential that does not rotate).
	Rejected              int `json:"rejected"`
	RejectedOutsideWindow int `json:"rejectedOutsideWindow"`
	// Unreachable: Keystone did not answer; ReadErrors: the Secret could
	// not be re-read (the attempt used the last content).
	Unreachable int `json:"unreachable"`
	ReadErrors  int `json:"readErrors"`
	// Delivered is the number of distinct credentials the Secret carried.
	Delivered int `json:"delivered"`
	// Failures are the failed attempts other than unreachable, at most 50.
	Failures []failure `json:"failures"`
}

// CredentialReport compares what Keystone saw minted with the generations
// the status recorded.
type CredentialReport struct {
	Order string `json:"order"`
	// Generations is last - first + 1 of the status generations observed.
	FirstGeneration int64 `json:"firstGeneration"`
	LastGeneration  int64 `json:"lastGeneration"`
	Generations     int64 `json:"generations"`
	// Minted: distinct application credentials Keystone listed for the
	// user (application credentials), or distinct passwords the Secret
	// delivered (the account).
	Minted int `json:"minted"`
}

// Problems are the findings that fail the soak.
func (r *Report) Problems() []string {
	var out []string
	for _, c := range r.Consumers {
		if c.Kind == credApplication && c.Rejected > 0 {
			out = append(out, fmt.Sprintf("%s: %d application-credential failures", c.Secret, c.Rejected))
		}
		if c.Kind == credPassword && c.RejectedOutsideWindow > 0 {
			out = append(out, fmt.Sprintf("%s: %d password failures outside the re-read window", c.Secret, c.RejectedOutsideWindow))
		}
	}
	for _, p := range r.Pods {
		if p.Kind == credApplication && p.Rejected > 0 {
			out = append(out, fmt.Sprintf("pods of %s: %d application-credential token requests rejected", p.Workload, p.Rejected))
		}
		if p.Kind == credPassword && p.OutsideWindow > 0 {
			out = append(out, fmt.Sprintf("pods of %s: %d rejections of the current password outside the re-read window",
				p.Workload, p.OutsideWindow))
		}
	}
	for _, c := range r.Credentials {
		if int64(c.Minted) > c.Generations {
			out = append(out, fmt.Sprintf("%s: %d minted for %d generations", c.Order, c.Minted, c.Generations))
		}
	}
	add := func(what string, l []string) {
		if len(l) > 0 {
			out = append(out, fmt.Sprintf("%s: %s", what, strings.Join(l, ", ")))
		}
	}
	add("leaked application credentials", r.LeakedApplicationCredentials)
	add("leaked users", r.LeakedUsers)
	add("unowned OpenBao paths", r.UnownedOpenBaoPaths)
	add("finalizers left", r.FinalizersLeft)
	add("users left after delete", r.UsersLeftAfterDelete)
	add("OpenBao paths left after delete", r.OpenBaoLeftAfterDelete)
	out = append(out, r.Errors...)
	return out
}

// check fills the consumer, credential and leak parts, on the converged
// state (before deletion).
func (e *env) check(ctx context.Context, rep *Report) {
	e.rec.mu.Lock()
	for _, d := range consumerSecrets() {
		st := e.rec.consumers[d.id()]
		cr := ConsumerReport{Secret: d.id(), Kind: d.kind, Rotates: d.rotates, Attempts: st.attempts, ReadErrors: st.readErrors,
			Delivered: len(st.contents)}
		for _, f := range st.failures {
			switch f.Class {
			case classUnreachable:
				cr.Unreachable++
				continue
			case classUnread:
				cr.ReadErrors++
				continue
			}
			cr.Rejected++
			if !f.InWindow {
				cr.RejectedOutsideWindow++
			}
			if len(cr.Failures) < 50 {
				cr.Failures = append(cr.Failures, f)
			}
		}
		rep.Consumers = append(rep.Consumers, cr)
	}
	pw := e.rec.pwGens
	acGens := map[string][2]int64{}
	for cl, g := range e.rec.acGens {
		acGens[cl] = *g
	}
	acSeen := map[string]map[string]bool{}
	for cl, s := range e.rec.acSeen {
		acSeen[cl] = map[string]bool{}
		for id := range s {
			acSeen[cl][id] = true
		}
	}
	svcDelivered := len(e.rec.consumers[consumerSecrets()[0].id()].contents)
	e.rec.mu.Unlock()

	rep.Credentials = append(rep.Credentials, CredentialReport{Order: "KeystoneService " + planeNS + "/" + serviceName + " (password)",
		FirstGeneration: pw[0], LastGeneration: pw[1], Generations: pw[1] - pw[0] + 1, Minted: svcDelivered})
	referencedUsers := map[string]bool{}
	var ks c5c3v1alpha1.KeystoneService
	if err := e.mgmt.Get(ctx, client.ObjectKey{Namespace: planeNS, Name: serviceName}, &ks); err == nil && ks.Status.Account != nil {
		referencedUsers[ks.Status.Account.UserID] = true
	} else if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("read KeystoneService: %v", err))
	}
	for _, cl := range []string{"", targetName} {
		c := e.clusters[cl]
		var u c5c3v1alpha1.KeystoneUser
		var ac c5c3v1alpha1.KeystoneApplicationCredential
		if err := c.Get(ctx, client.ObjectKey{Namespace: tenantNS, Name: orderName(cl, userBase)}, &u); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("read KeystoneUser: %v", err))
			continue
		}
		if err := c.Get(ctx, client.ObjectKey{Namespace: tenantNS, Name: orderName(cl, acBase)}, &ac); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("read KeystoneApplicationCredential: %v", err))
			continue
		}
		referencedUsers[u.Status.UserID] = true
		order := placed{cl, &ac}.id()
		// Keystone serves one request at a time beside five consumers, the
		// hub and K-ORC: a listing that times out is tried again for up to a
		// minute before it is a report error.
		var ids []string
		err := poll(ctx, time.Minute, "list application credentials", func() error {
			var lerr error
			ids, lerr = listAppCreds(ctx, e.identity, u.Status.UserID)
			return lerr
		})
		if err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("list application credentials of %s: %v", u.Status.UserID, err))
			continue
		}
		seen := acSeen[cl]
		if seen == nil {
			seen = map[string]bool{}
		}
		for _, id := range append(ids, ac.Status.CredentialID, ac.Status.PreviousCredentialID) {
			if id != "" {
				seen[id] = true
			}
		}
		for _, id := range ids {
			if id != ac.Status.CredentialID && id != ac.Status.PreviousCredentialID {
				rep.LeakedApplicationCredentials = append(rep.LeakedApplicationCredentials, id+" ("+order+")")
			}
		}
		g := acGens[cl]
		rep.Credentials = append(rep.Credentials, CredentialReport{Order: order, FirstGeneration: g[0], LastGeneration: g[1],
			Generations: g[1] - g[0] + 1, Minted: len(seen)})
	}
	now, err := keystoneUsers(ctx, e.identity)
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("list Keystone users: %v", err))
	}
	for id, name := range now {
		if !e.baselineUsers[id] && !referencedUsers[id] {
			rep.LeakedUsers = append(rep.LeakedUsers, id+" ("+name+")")
		}
	}
	sort.Strings(rep.LeakedUsers)
	paths, err := openBaoPaths(ctx, e.st)
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("list OpenBao paths: %v", err))
	}
	owners := ownerPrefixes(true)
	for _, p := range paths {
		if e.baselinePaths[p] || hasAnyPrefix(p, owners) {
			continue
		}
		rep.UnownedOpenBaoPaths = append(rep.UnownedOpenBaoPaths, p)
	}
}

// ownerPrefixes are the KV path prefixes of the plane and, with orders,
// of the live orders (delivery/openbao paths.go).
func ownerPrefixes(orders bool) []string {
	root := "openstack/keystone/" + planeNS + "/"
	out := []string{root + planeName + "/"}
	if !orders {
		return out
	}
	out = append(out, root+serviceName+"/")
	for _, cl := range []string{"", targetName} {
		for _, o := range []struct{ name, infix string }{{orderName(cl, userBase), korc.InfixUser}, {orderName(cl, acBase), korc.InfixApplicationCredential}} {
			out = append(out, root+strings.TrimSuffix(childPrefix(cl, o.name, o.infix), "-")+"/")
		}
	}
	return out
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// teardown deletes every order (the application credentials first, as
// docs/reference/keystoneapplicationcredential.md advises), waits until
// they are gone and records what is left.
func (e *env) teardown(ctx context.Context, rep *Report) {
	start := time.Now()
	all := desiredOrders()
	all = append(all, placed{"", &c5c3v1alpha1.CredentialRotation{}})
	all[len(all)-1].obj.SetNamespace(planeNS)
	all[len(all)-1].obj.SetName(rotationName)
	var first, rest []placed
	for _, o := range all {
		if _, ok := o.obj.(*c5c3v1alpha1.KeystoneApplicationCredential); ok {
			first = append(first, o)
		} else {
			rest = append(rest, o)
		}
	}
	gone := func(l []placed) error {
		for _, o := range l {
			obj := o.obj.DeepCopyObject().(client.Object)
			if err := e.clusters[o.cluster].Get(ctx, client.ObjectKeyFromObject(obj), obj); err == nil {
				return fmt.Errorf("%s still exists (finalizers %v)", o.id(), obj.GetFinalizers())
			} else if !isGone(err) {
				return err
			}
		}
		return nil
	}
	for _, l := range [][]placed{first, rest} {
		for _, o := range l {
			if err := e.clusters[o.cluster].Delete(ctx, o.obj.DeepCopyObject().(client.Object)); err != nil && !isGone(err) {
				rep.Errors = append(rep.Errors, fmt.Sprintf("delete %s: %v", o.id(), err))
			}
		}
		_ = poll(ctx, convergeTimeout, "orders deleted", func() error { return gone(l) })
	}
	rep.DeletedIn = time.Since(start).Round(100 * time.Millisecond).String()
	for _, o := range all {
		obj := o.obj.DeepCopyObject().(client.Object)
		if err := e.clusters[o.cluster].Get(ctx, client.ObjectKeyFromObject(obj), obj); err == nil {
			rep.FinalizersLeft = append(rep.FinalizersLeft, fmt.Sprintf("%s: %v", o.id(), obj.GetFinalizers()))
		}
	}
	// K-ORC children in the plane's namespace that still hold a finalizer.
	for _, l := range []client.ObjectList{&orcv1alpha1.UserList{}, &orcv1alpha1.ProjectList{}, &orcv1alpha1.ApplicationCredentialList{}} {
		if err := e.mgmt.List(ctx, l, client.InNamespace(planeNS)); err != nil {
			rep.Errors = append(rep.Errors, fmt.Sprintf("list %T: %v", l, err))
			continue
		}
		var items []client.Object
		switch l := l.(type) {
		case *orcv1alpha1.UserList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		case *orcv1alpha1.ProjectList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		case *orcv1alpha1.ApplicationCredentialList:
			for i := range l.Items {
				items = append(items, &l.Items[i])
			}
		}
		for _, it := range items {
			if len(it.GetFinalizers()) > 0 || it.GetDeletionTimestamp() != nil {
				rep.FinalizersLeft = append(rep.FinalizersLeft, fmt.Sprintf("K-ORC %T %s/%s: %v", it, it.GetNamespace(), it.GetName(), it.GetFinalizers()))
			}
		}
	}
	now, err := keystoneUsers(ctx, e.identity)
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("list Keystone users: %v", err))
	}
	for id, name := range now {
		if !e.baselineUsers[id] {
			rep.UsersLeftAfterDelete = append(rep.UsersLeftAfterDelete, id+" ("+name+")")
		}
	}
	sort.Strings(rep.UsersLeftAfterDelete)
	paths, err := openBaoPaths(ctx, e.st)
	if err != nil {
		rep.Errors = append(rep.Errors, fmt.Sprintf("list OpenBao paths: %v", err))
	}
	plane := ownerPrefixes(false)
	for _, p := range paths {
		if !e.baselinePaths[p] && !hasAnyPrefix(p, plane) {
			rep.OpenBaoLeftAfterDelete = append(rep.OpenBaoLeftAfterDelete, p)
		}
	}
}

// keystoneUsers returns every Keystone user, id -> name.
func keystoneUsers(ctx context.Context, ic *gophercloud.ServiceClient) (map[string]string, error) {
	pages, err := users.List(ic, nil).AllPages(ctx)
	if err != nil {
		return nil, err
	}
	l, err := users.ExtractUsers(pages)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, u := range l {
		out[u.ID] = u.Name
	}
	return out, nil
}

// openBaoPaths lists every KV v2 path of the stack's server (root token).
func openBaoPaths(ctx context.Context, st *testenv.Stack) ([]string, error) {
	c, err := bao.NewClient(&bao.Config{Address: st.OpenBao.Addr, Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	c.SetToken(st.OpenBao.Token)
	var out []string
	var walk func(prefix string) error
	walk = func(prefix string) error {
		sec, err := c.Logical().ListWithContext(ctx, st.OpenBao.KVMount+"/metadata/"+prefix)
		if err != nil {
			return err
		}
		if sec == nil || sec.Data == nil {
			return nil
		}
		keys, _ := sec.Data["keys"].([]any)
		for _, k := range keys {
			name, _ := k.(string)
			if strings.HasSuffix(name, "/") {
				if err := walk(prefix + name); err != nil {
					return err
				}
				continue
			}
			out = append(out, prefix+name)
		}
		return nil
	}
	err = walk("")
	sort.Strings(out)
	return out, err
}

// kindLabel is a credential kind for the table, marked when it rotates.
func kindLabel(kind string, rotates bool) string {
	if rotates {
		return kind + " (rotated)"
	}
	return kind
}

// WriteTable prints the report for people.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "\nrotation soak: seed %d, duration %s, %d faults (%s), %s .. %s\n\n", r.Seed, r.Duration, len(r.Faults),
		strings.Join(r.Kinds, ","), r.Started.Format(time.RFC3339), r.Ended.Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FAULT\tAT\tDOWN\tAPPLICATION CREDENTIALS\tERROR")
	for _, f := range r.Faults {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Kind, f.At.Format("15:04:05"), f.Down, f.Steps, f.Error)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SECRET\tKIND\tATTEMPTS\tREJECTED\tOUTSIDE WINDOW\tUNREACHABLE\tREAD ERRORS\tDELIVERED")
	for _, c := range r.Consumers {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", c.Secret, kindLabel(c.Kind, c.Rotates), c.Attempts, c.Rejected, c.RejectedOutsideWindow,
			c.Unreachable, c.ReadErrors, c.Delivered)
	}
	tw.Flush()
	for _, c := range r.Consumers {
		for _, f := range c.Failures {
			fmt.Fprintf(w, "  %s %s %s stale=%v inWindow=%v: %s\n", c.Secret, f.At.Format("15:04:05"), f.Class, f.Stale, f.InWindow, f.Message)
		}
	}
	if len(r.Pods) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "POD WORKLOAD\tKIND\tPODS\tCREDENTIALS\tTOKEN REQUESTS\tREJECTED\tSUPERSEDED\tOUTSIDE WINDOW\tUNREACHABLE")
		for _, p := range r.Pods {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", p.Workload, kindLabel(p.Kind, p.Rotates), p.Pods, p.Credentials, p.Requests,
				p.Rejected, p.Superseded, p.OutsideWindow, p.Unreachable)
		}
		tw.Flush()
		for _, p := range r.Pods {
			if p.Kind == credApplication || p.OutsideWindow > 0 {
				for _, f := range p.Failures {
					fmt.Fprintf(w, "  %s\n", f)
				}
			}
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ORDER\tGENERATIONS\tMINTED")
	for _, c := range r.Credentials {
		fmt.Fprintf(tw, "%s\t%d (%d..%d)\t%d\n", c.Order, c.Generations, c.FirstGeneration, c.LastGeneration, c.Minted)
	}
	tw.Flush()
	list := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, ", ")
	}
	fmt.Fprintf(w, "\nleaked application credentials: %s\n", list(r.LeakedApplicationCredentials))
	fmt.Fprintf(w, "leaked users:                   %s\n", list(r.LeakedUsers))
	fmt.Fprintf(w, "unowned OpenBao paths:          %s\n", list(r.UnownedOpenBaoPaths))
	fmt.Fprintf(w, "deleted in:                     %s\n", r.DeletedIn)
	fmt.Fprintf(w, "finalizers left:                %s\n", list(r.FinalizersLeft))
	fmt.Fprintf(w, "users left after delete:        %s\n", list(r.UsersLeftAfterDelete))
	fmt.Fprintf(w, "OpenBao paths left after delete: %s\n", list(r.OpenBaoLeftAfterDelete))
	fmt.Fprintf(w, "converged after the last fault: %s\n", r.ConvergedAfterLastFault)
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "errors: %s\n", strings.Join(r.Errors, "; "))
	}
}
