package openbao

import (
	"context"
	"errors"
	"fmt"

	bao "github.com/openbao/openbao/api/v2"
)

// ErrNotFound is returned (wrapped) when a path holds no live version: it was
// never written, its metadata was deleted, or its latest version is deleted.
var ErrNotFound = errors.New("openbao: secret not found")

// ErrPropertyNotFound is returned (wrapped) when the latest version exists
// but lacks the requested property.
var ErrPropertyNotFound = errors.New("openbao: property not found")

// ManagedByKey and ManagedByESO are the custom_metadata ESO's Vault provider
// stamps on a leaf it created (managed-by=external-secrets); ESO refuses to
// push to a pre-existing leaf without it (ESO's Vault provider,
// github.com/external-secrets/external-secrets v0.16.2).
const (
	ManagedByKey = "managed-by"
	ManagedByESO = "external-secrets"
)

// KV reads and tears down secrets of one KV v2 mount.
type KV struct {
	kv *bao.KVv2
}

// NewKV returns the KV v2 helpers for mount (e.g. DefaultKVMount) on c.
func NewKV(c *bao.Client, mount string) *KV { return &KV{kv: c.KVv2(mount)} }

// Secret is the latest live version of a KV v2 secret.
type Secret struct {
	// Data maps each property to its value. Non-string values are rendered
	// with %v.
	Data map[string]string
	// Version is the KV v2 version number (1 for the first write).
	Version int
	// CustomMetadata is the path's custom_metadata (e.g. managed-by).
	CustomMetadata map[string]string
}

// Read returns the latest live version at path. It wraps ErrNotFound when
// there is none, and returns the transport or permission error otherwise.
func (k *KV) Read(ctx context.Context, path string) (*Secret, error) {
	s, err := k.kv.Get(ctx, path)
	if errors.Is(err, bao.ErrSecretNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, path)
	}
	if err != nil {
		return nil, fmt.Errorf("openbao: read %s: %w", path, err)
	}
	if s == nil || s.Data == nil {
		return nil, fmt.Errorf("%w: %s (latest version deleted)", ErrNotFound, path)
	}
	out := &Secret{Data: stringMap(s.Data), CustomMetadata: stringMap(s.CustomMetadata)}
	if s.VersionMetadata != nil {
		out.Version = s.VersionMetadata.Version
	}
	return out, nil
}

// ReadProperty returns property of the latest live version at path, and that
// version. It wraps ErrNotFound or ErrPropertyNotFound.
func (k *KV) ReadProperty(ctx context.Context, path, property string) (string, int, error) {
	s, err := k.Read(ctx, path)
	if err != nil {
		return "", 0, err
	}
	v, ok := s.Data[property]
	if !ok {
		return "", s.Version, fmt.Errorf("%w: %s has no %q", ErrPropertyNotFound, path, property)
	}
	return v, s.Version, nil
}

// VerifyProperty reports whether property at path equals want, without
// returning the stored value (so a caller cannot log it by accident). A
// missing path or property is a mismatch, not an error.
func (k *KV) VerifyProperty(ctx context.Context, path, property, want string) (bool, error) {
	got, _, err := k.ReadProperty(ctx, path, property)
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrPropertyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return got == want, nil
}

// Exists reports whether path has metadata (any version, live or deleted).
func (k *KV) Exists(ctx context.Context, path string) (bool, error) {
	m, err := k.metadata(ctx, path)
	return m != nil, err
}

// ManagedByExternalSecrets reports whether path carries ESO's
// managed-by=external-secrets custom metadata. A missing path reports false.
func (k *KV) ManagedByExternalSecrets(ctx context.Context, path string) (bool, error) {
	m, err := k.metadata(ctx, path)
	if m == nil {
		return false, err
	}
	return fmt.Sprint(m.CustomMetadata[ManagedByKey]) == ManagedByESO, nil
}

// metadata reads path's metadata; nil and no error when path is missing.
func (k *KV) metadata(ctx context.Context, path string) (*bao.KVMetadata, error) {
	m, err := k.kv.GetMetadata(ctx, path)
	if errors.Is(err, bao.ErrSecretNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("openbao: read metadata %s: %w", path, err)
	}
	return m, nil
}

// DeleteMetadata removes every version and the metadata of path: the
// teardown of a backup path whose PushSecret is gone. Deleting a missing path
// succeeds (KV v2 answers 204 either way).
func (k *KV) DeleteMetadata(ctx context.Context, path string) error {
	if err := k.kv.DeleteMetadata(ctx, path); err != nil {
		return fmt.Errorf("openbao: delete metadata %s: %w", path, err)
	}
	return nil
}

func stringMap(m map[string]any) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}
