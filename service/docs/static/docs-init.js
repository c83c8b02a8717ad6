// Starts Swagger UI on /docs. A static file, not an inline script, so that the page
// satisfies its Content-Security-Policy (script-src 'self').
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",      // no top bar: its logo carries an inline <style> the CSP refuses
    validatorUrl: null,        // never ask an outside validator about the document
    docExpansion: "list",
    displayOperationId: true,
    tryItOutEnabled: false
  });
});
