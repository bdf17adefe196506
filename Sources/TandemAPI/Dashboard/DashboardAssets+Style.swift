/// The dashboard's style sheet (`GET /dashboard/dashboard.css`): system fonts only, nothing fetched.
extension DashboardAssets {
    static let style = #"""
:root { --fg: #1d2330; --muted: #5f6b7a; --line: #d7dde5; --bg: #f5f7fa; --tile: #fff; --push: #2f6fdf;
        --sms: #d9822b; --bad: #c62f2f; --ok: #1f8a4c; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 1.5rem; padding: .6rem 1.2rem; background: var(--fg); color: #fff; }
header h1 { font-size: 1.2rem; margin: 0; }
header nav a { color: #cfd8e6; margin-right: 1rem; text-decoration: none; }
header nav a.current { color: #fff; font-weight: 600; border-bottom: 2px solid #fff; }
#status { margin-left: auto; color: #cfd8e6; font-size: .85rem; }
button { font: inherit; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; cursor: pointer; }
#login { max-width: 32rem; margin: 4rem auto; background: var(--tile); padding: 1.5rem; border-radius: 8px; border: 1px solid var(--line); }
#login input { width: 70%; padding: .35rem; font: inherit; }
.error { color: var(--bad); }
main#live { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 1rem; padding: 1rem; }
.tile { background: var(--tile); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; }
.tile h2 { font-size: .95rem; margin: 0 0 .5rem; color: var(--muted); font-weight: 600; }
.big { font-size: 1.6rem; margin: .2rem 0 .6rem; }
.big small, .tile small { font-size: .8rem; color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .15rem .4rem; border-bottom: 1px solid var(--line); }
th { color: var(--muted); font-weight: 500; font-size: .8rem; }
td.v, td.rate, td.ratio { text-align: right; font-variant-numeric: tabular-nums; }
.bars rect { fill: var(--push); }
.bars text { font-size: 10px; fill: var(--muted); }
main#messages { padding: 1rem; }
.search select, .search input { font: inherit; padding: .3rem; }
.search input { width: 28rem; }
.message { background: var(--tile); border: 1px solid var(--line); border-radius: 8px; padding: .8rem 1rem; margin: 1rem 0; }
.message h3 { margin: 0 0 .3rem; font-size: 1rem; }
.meta { color: var(--muted); font-size: .85rem; }
.recipient { border-top: 1px solid var(--line); margin-top: .6rem; padding-top: .6rem; }
.why { font-weight: 600; }
.why.fallback { color: var(--sms); }
svg.timeline { width: 100%; max-width: 980px; height: auto; display: block; margin: .4rem 0; }
.timeline .axis { stroke: var(--muted); stroke-width: 1; }
.timeline .tick text, .timeline .label { font-size: 11px; fill: var(--fg); }
.timeline .tick line { stroke: var(--line); }
.timeline .event circle { fill: var(--push); stroke: #fff; stroke-width: 1.5; }
.timeline .event.sms circle { fill: var(--sms); }
.timeline .event.bad circle { fill: var(--bad); }
.timeline .event.timer circle { fill: #7a4fd6; }
.timeline .deadline { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 5 3; }
.timeline .deadline-label { font-size: 11px; fill: var(--bad); }
.events td { font-size: .85rem; }
"""#
}
