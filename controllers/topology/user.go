package topology

import (
	"context"
	"fmt"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/password"
	"github.com/c5c3/orderhub/internal/rabbitmq"
)

// Keys of a credentials Secret (upstream's names).
const (
	SecretKeyUsername     = "username"
	SecretKeyPassword     = "password"
	SecretKeyPasswordHash = "passwordHash"
	// GeneratedSecretSuffix names the Secret of a generated password:
	// <User name>-user-credentials.
	GeneratedSecretSuffix = "-user-credentials"
	// labelTopologyOperator marks the generated Secret as upstream does.
	labelTopologyOperator = "rabbitmq.com/topology-operator"
)

// userActuator declares a User: PUT /api/users/{username}, then its limits.
type userActuator struct {
	broker *rabbithole.Client
	kube   client.Client
	scheme *runtime.Scheme
}

// userDesired holds the credentials; it is hashed (so a password change in
// the same Secret is noticed) but never logged.
type userDesired struct {
	Username string
	Settings rabbithole.UserSettings
	// Passwordless is set for an imported empty passwordHash.
	Passwordless bool
	Limits       map[string]int
	// previous is the username reported before this reconcile; when it
	// differs the old broker user is deleted after the new one is declared.
	previous string
}

// Resolve reads the imported Secret, or creates the generated one when it is
// absent (never rewriting it, so the password is not rotated), and sets
// status.username and status.credentials.
func (a userActuator) Resolve(ctx context.Context, o *rmqv1.User) (any, error) {
	secretName := o.Name + GeneratedSecretSuffix
	if o.Spec.ImportCredentialsSecret != nil {
		secretName = o.Spec.ImportCredentialsSecret.Name
	}
	var s corev1.Secret
	err := a.kube.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: secretName}, &s)
	switch {
	case apierrors.IsNotFound(err) && o.Spec.ImportCredentialsSecret != nil:
		return nil, waitingf("Secret %q named by importCredentialsSecret does not exist", secretName)
	case apierrors.IsNotFound(err):
		if s, err = a.generate(ctx, o, secretName); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	}
	d, err := userFromSecret(o, s.Data)
	if err != nil {
		return nil, fmt.Errorf("Secret %q: %w", secretName, err)
	}
	if err := refuseOwnAdmin(d.Username, a.broker.Username); err != nil {
		return nil, err
	}
	d.previous = o.Status.Username
	o.Status.Username = d.Username
	o.Status.Credentials = &corev1.LocalObjectReference{Name: secretName}
	return d, nil
}

// userFromSecret builds the declaration from a credentials Secret's data, as
// upstream reads it (github.com/rabbitmq/messaging-topology-operator
// internal/controller/user_controller.go, importCredentials): username is
// required, then passwordHash (wins; empty means passwordless) or password.
func userFromSecret(o *rmqv1.User, data map[string][]byte) (userDesired, error) {
	d := userDesired{Username: string(data[SecretKeyUsername])}
	if d.Username == "" {
		return userDesired{}, fmt.Errorf("no %q key (upstream's rule: the username is never guessed)", SecretKeyUsername)
	}
	tags := make(rabbithole.UserTags, 0, len(o.Spec.Tags))
	for _, t := range o.Spec.Tags {
		tags = append(tags, string(t))
	}
	d.Settings = rabbithole.UserSettings{Name: d.Username, Tags: tags}
	if h, ok := data[SecretKeyPasswordHash]; ok {
		if len(h) == 0 {
			d.Passwordless = true
		} else {
			d.Settings.PasswordHash = string(h)
			d.Settings.HashingAlgorithm = rabbithole.HashingAlgorithmSHA512
		}
	} else if p, ok := data[SecretKeyPassword]; ok && len(p) > 0 {
		d.Settings.Password = string(p)
	} else {
		return userDesired{}, fmt.Errorf("no %q or %q key", SecretKeyPassword, SecretKeyPasswordHash)
	}
	if l := o.Spec.Limits; l != nil {
		d.Limits = limitValues(map[string]*int32{"max-connections": l.Connections, "max-channels": l.Channels})
	}
	return d, nil
}

// generate writes <name>-user-credentials with a random username and a
// random password, as upstream does (there both are 24 random bytes in
// base64url), both from internal/password (52 characters, A–Z and 2–7, so
// neither begins with "-"), owned by the User so it is collected with it.
func (a userActuator) generate(ctx context.Context, o *rmqv1.User, name string) (corev1.Secret, error) {
	s := corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: o.Namespace, Name: name,
			Labels: map[string]string{labelTopologyOperator: "true"}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{
			SecretKeyUsername: password.New(),
			SecretKeyPassword: password.New(),
		},
	}
	if err := controllerutil.SetControllerReference(o, &s, a.scheme); err != nil {
		return corev1.Secret{}, err
	}
	// As upstream: the Secret does not hold up a foreground deletion of the
	// User.
	for i := range s.OwnerReferences {
		s.OwnerReferences[i].BlockOwnerDeletion = new(false)
	}
	if err := a.kube.Create(ctx, &s); err != nil {
		if apierrors.IsAlreadyExists(err) {
			// Another reconcile wrote it; read it back next time.
			return corev1.Secret{}, waitingf("Secret %q was just created", name)
		}
		return corev1.Secret{}, fmt.Errorf("creating Secret %q: %w", name, err)
	}
	return s, nil
}

func (a userActuator) Declare(_ context.Context, o *rmqv1.User, desired any) error {
	d := desired.(userDesired)
	var err error
	if d.Passwordless {
		err = rabbitmq.Done(a.broker.PutUserWithoutPassword(d.Username, d.Settings))
	} else {
		err = rabbitmq.Done(a.broker.PutUser(d.Username, saltedSettings(d.Settings)))
	}
	if err != nil {
		return err
	}
	have, err := a.limits(d.Username)
	if err != nil && !rabbitmq.IsNotFound(err) {
		return err
	}
	err = applyLimits(have, d.Limits,
		func(k string, v int) error {
			return rabbitmq.Done(a.broker.PutUserLimits(d.Username, rabbithole.UserLimitsValues{k: v}))
		},
		func(k string) error {
			return rabbitmq.Done(a.broker.DeleteUserLimits(d.Username, rabbithole.UserLimits{k}))
		})
	if err != nil {
		return err
	}
	if d.previous != "" && d.previous != d.Username && o.EffectiveDeletionPolicy() == rmqv1.DeletionPolicyDelete {
		return rabbitmq.Done(a.broker.DeleteUser(d.previous))
	}
	return nil
}

// limits is GET /api/user-limits/{username} as one map (empty on an error).
func (a userActuator) limits(username string) (map[string]int, error) {
	listed, err := a.broker.GetUserLimits(username)
	return mergedLimits(listed, func(l rabbithole.UserLimitsInfo) map[string]int { return l.Value }), err
}

// Delete deletes the user named in status.username; without one nothing was
// declared.
func (a userActuator) Delete(_ context.Context, o *rmqv1.User) error {
	if o.Status.Username == "" {
		return nil
	}
	return rabbitmq.Done(a.broker.DeleteUser(o.Status.Username))
}

// refuseOwnAdmin rejects a User that would declare the administrative user
// this controller authenticates as: declaring it would overwrite the
// controller's own password and tags (and deleting it would remove it),
// locking the controller out of the broker.
func refuseOwnAdmin(username, admin string) error {
	if admin != "" && username == admin {
		return fmt.Errorf("username %q is the administrative user this controller authenticates as; "+
			"refusing to manage it: choose another username", username)
	}
	return nil
}

// saltedSettings replaces a plain password by its salted SHA-512
// password_hash, as upstream sends it (internal/user.go, GenerateUserSettings),
// so the password never travels and the broker stores the same kind of hash
// either controller would. A fresh salt is drawn per request; the desired
// state keeps the plain password, so its hash does not change per request.
func saltedSettings(s rabbithole.UserSettings) rabbithole.UserSettings {
	if s.Password == "" {
		return s
	}
	s.PasswordHash = rabbithole.Base64EncodedSaltedPasswordHashSHA512(s.Password)
	s.HashingAlgorithm = rabbithole.HashingAlgorithmSHA512
	s.Password = ""
	return s
}
