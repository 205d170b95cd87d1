/** esbuild bundles the stylesheet the page imports into app.css. */
declare module '*.css';
