package replica

import (
	"strings"
	"testing"

	"github.com/benbjohnson/litestream/file"
	"github.com/benbjohnson/litestream/s3"
)

func TestNewClient(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "key-from-env")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret-from-env")
	folder, err := newClient("file:///var/backups/enrichment/")
	if c, ok := folder.(*file.ReplicaClient); err != nil || !ok || c.Path() != "/var/backups/enrichment" {
		t.Errorf("file URL: %#v, %v", folder, err)
	}
	bucket, err := newClient("s3://backups/enrichment/prod?endpoint=https://objects.example.net&region=eu-central-1")
	if c, ok := bucket.(*s3.ReplicaClient); err != nil || !ok ||
		c.Bucket != "backups" || c.Path != "enrichment/prod" || c.Endpoint != "https://objects.example.net" ||
		c.Region != "eu-central-1" || !c.ForcePathStyle || c.AccessKeyID != "key-from-env" || c.SecretAccessKey != "secret-from-env" {
		t.Errorf("s3 URL: %#v, %v", bucket, err)
	}

	for _, bad := range []struct{ url, want string }{
		{"file:relative/folder", "file:///absolute/path"},
		{"file://host/folder", "file:///absolute/path"},
		{"file://", "file:///absolute/path"},
		{"s3:///no-bucket", "s3://bucket/path"},
		{"s3://user:secret@bucket/path", "AWS_ACCESS_KEY_ID"},
		{"gs://bucket/path", "file or s3"},
		{"/var/backups", "file or s3"},
		{"::", "replica URL"},
	} {
		_, err := newClient(bad.url)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("newClient(%q): %v, want an error mentioning %q", bad.url, err, bad.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret@") {
			t.Errorf("newClient(%q) shows the credentials: %v", bad.url, err)
		}
	}
}

func TestDescribe(t *testing.T) {
	for in, want := range map[string]string{
		"s3://user:secret@bucket/path?endpoint=http://127.0.0.1:9000": "s3://bucket/path?endpoint=http://127.0.0.1:9000",
		"file:///var/backups/enrichment":                              "file:///var/backups/enrichment",
	} {
		if got := Describe(in); got != want {
			t.Errorf("Describe(%q) = %q, want %q", in, got, want)
		}
	}
}
