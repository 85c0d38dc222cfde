package everything

import (
	"context"
	"fmt"
)

// StaticText is a fixed text resource; it is listed first, so caching tests
// read it.
//
//mcp:resource test://static-text name=static_text title="Static text" mime=text/plain
func StaticText(ctx context.Context) (string, error) {
	return "This is the content of the static text resource.", nil
}

// StaticBinary is a fixed binary resource: a 1×1 PNG image.
//
//mcp:resource test://static-binary name=static_binary mime=image/png
func StaticBinary(ctx context.Context) ([]byte, error) {
	return onePixelPNG(), nil
}

// WatchedResource is a resource clients may subscribe to; the
// test_update_watched_resource tool announces a change of it.
//
//mcp:resource test://watched-resource name=watched_resource mime=text/plain
func WatchedResource(ctx context.Context) (string, error) {
	return "This resource is watched for changes.", nil
}

// TemplateData returns JSON data for any id: the resource template
// test://template/{id}/data.
//
//mcp:resource test://template/{id}/data name=template_data mime=application/json
func TemplateData(ctx context.Context, id string) (string, error) {
	return fmt.Sprintf(`{"id":%q,"templateTest":true,"data":"Data for ID: %s"}`, id, id), nil
}
