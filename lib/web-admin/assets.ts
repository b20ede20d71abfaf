/**
 * The admin's one stylesheet, served from /admin/assets/admin.css (the CSP allows styles from this origin only).
 * Plain CSS, no build step; the SVG chart is coloured by its attributes.
 */
export const ADMIN_CSS = `
body { font-family: system-ui, "Hiragino Sans", "Noto Sans JP", sans-serif; margin: 0; color: #1d1c1d; background: #f8f8f8; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .75rem 1.25rem; background: #3f0e40; color: #fff; }
header a { color: #fff; margin-right: 1rem; }
header nav { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem; }
header .who { margin: 0 1rem; opacity: .85; }
main { padding: 1rem 1.25rem 3rem; max-width: 72rem; }
h1 { font-size: 1.4rem; }
h2 { font-size: 1.1rem; margin-top: 1.75rem; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid #ddd; padding: .35rem .5rem; text-align: left; vertical-align: top; font-size: .9rem; }
th { background: #f0eef0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
form.inline { display: inline; }
form.filters { display: flex; flex-wrap: wrap; gap: .75rem; align-items: end; margin-bottom: 1rem; }
label { display: block; font-size: .85rem; }
input, select, textarea, button { font: inherit; }
textarea { width: 100%; max-width: 40rem; }
fieldset { background: #fff; border: 1px solid #ddd; margin-bottom: 1.25rem; }
.toast { margin: 1rem 1.25rem 0; padding: .75rem 1rem; border-radius: 4px; max-width: 70rem; }
.toast-error { background: #fde8e8; border: 1px solid #e01e5a; }
.toast-info { background: #e8f5e9; border: 1px solid #2eb67d; }
.muted { color: #616061; }
.notice { padding: .5rem .75rem; background: #fff8e1; border: 1px solid #ecb22e; max-width: 70rem; }
.field-problem { display: block; color: #b3134a; font-size: .85rem; }
[aria-invalid="true"] { outline: 2px solid #e01e5a; }
select[multiple] { min-width: 20rem; }
.chart { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.chart svg { background: #fff; border: 1px solid #ddd; }
.chart table { width: auto; min-width: 14rem; }
code { font-size: .85em; background: #eee; padding: 0 .25em; }
`;
