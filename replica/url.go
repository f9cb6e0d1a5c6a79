package replica

import (
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"

	"github.com/benbjohnson/litestream"
	"github.com/benbjohnson/litestream/file"
	"github.com/benbjohnson/litestream/s3"
)

// newClient returns Litestream's client for a replica URL: file:///path for
// a folder, s3://bucket/path for a bucket, with the query options endpoint
// (an S3-compatible store), region and forcePathStyle. S3 credentials come
// from the environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the
// SDK's usual chain: profile, instance role).
func newClient(rawURL string) (litestream.ReplicaClient, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("replica URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "file":
		// note: file:relative parses as an opaque URL, file://dir/x puts dir in Host
		if u.Opaque != "" || u.Host != "" || !path.IsAbs(u.Path) {
			return nil, fmt.Errorf("replica URL %q: a folder is file:///absolute/path", rawURL)
		}
		return file.NewReplicaClient(path.Clean(u.Path)), nil
	case "s3":
		if u.Host == "" {
			return nil, fmt.Errorf("replica URL %q: an S3 replica is s3://bucket/path", rawURL)
		}
		if u.User != nil {
			return nil, fmt.Errorf("replica URL %q: put S3 credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, not in the URL", Describe(rawURL))
		}
		return s3.NewReplicaClientFromURL(u.Scheme, u.Host, litestream.CleanReplicaURLPath(u.Path), u.Query(), nil)
	default:
		return nil, fmt.Errorf("replica URL %q: the scheme must be file or s3", Describe(rawURL))
	}
}

// explain adds what to do to an error of the S3 client that names no
// remedy: the AWS SDK cannot apply AWS_CA_BUNDLE to the HTTP client that
// Litestream gives it.
func explain(err error) error {
	if os.Getenv("AWS_CA_BUNDLE") != "" && strings.Contains(err.Error(), "RootCAs") {
		return fmt.Errorf("%w (AWS_CA_BUNDLE is set, which Litestream's S3 client cannot use: unset it; "+
			"Go reads extra certificate authorities from SSL_CERT_FILE or SSL_CERT_DIR)", err)
	}
	return err
}

// Describe returns the replica URL as it may be shown: without user
// information, which only a misconfigured URL would carry.
func Describe(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(an unreadable URL)"
	}
	u.User = nil
	return u.String()
}
