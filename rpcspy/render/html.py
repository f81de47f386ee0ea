"""One self-contained HTML page of a timeline: inline CSS and JS, no network.

The page is produced as a stream of strings (:func:`html_page`), so a large
recording is written out while it is read. Each item is a row; its frames are
in a collapsed ``<details>`` (pretty-printed JSON), its blocks (assistant text,
tool output) are visible, its findings are highlighted. A small script builds
the list of findings at the top, and offers a text filter and expand/collapse.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from html import escape

from rpcspy.events import ARROWS, Finding, Frame
from rpcspy.render.items import Item
from rpcspy.render.summarize import clean, cut, ms

MAX_FRAME_CHARS = 200_000
"""Frames longer than this are cut in the page (the recording keeps them whole)."""

CSS = """
:root{--fg:#1d2228;--dim:#6a737d;--bg:#fff;--line:#eaecef;--c2a:#0366d6;--a2c:#22863a;--err:#cb2431;
--warn:#b08800;--info:#005cc5;--hl:#fff5f5;--hlw:#fffbdd}
*{box-sizing:border-box}body{margin:0;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
color:var(--fg);background:var(--bg)}
header{position:sticky;top:0;background:#f6f8fa;border-bottom:1px solid var(--line);padding:8px 16px;z-index:2}
h1{font-size:15px;margin:0 0 4px}.meta{color:var(--dim);margin:0 0 6px;word-break:break-all}
.toolbar{display:flex;gap:8px;align-items:center;flex-wrap:wrap}.toolbar input[type=search]{width:280px;padding:3px 6px}
button{font:inherit;padding:2px 8px;cursor:pointer}
#findings{margin:6px 0 0;max-height:9em;overflow:auto}#findings a{color:inherit}
#findings li{list-style:none}#findings ul{margin:0;padding:0}
main{padding:6px 16px 40px}.item{border-left:3px solid transparent;padding:1px 6px;border-bottom:1px solid #f3f4f6}
.item>details>summary,.item>.line{list-style:none;cursor:pointer;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.item>.line{cursor:default}.item>details>summary::-webkit-details-marker{display:none}
.item>details>summary,.item>.line{padding-left:1.3em;position:relative}
.item>details>summary::before{content:"▸";color:var(--dim);position:absolute;left:0}
.item>details[open]>summary::before{content:"▾"}
.t,.seq{color:var(--dim);display:inline-block;text-align:right}.t{width:6.5em}.seq{width:4.5em;margin-right:.6em}
.arrow{display:inline-block;width:1.4em;font-weight:bold}.d-c2a .arrow{color:var(--c2a)}.d-a2c .arrow{color:var(--a2c)}
.d-err .arrow{color:var(--err)}.label{font-weight:bold}.ref{color:var(--dim)}.lat{margin-left:.4em}
.sum{color:#444;margin-left:.8em}.k-event .label,.k-delta .label,.k-eof .label,.k-note .label{font-weight:normal;color:var(--dim)}
.k-command .label{color:var(--c2a)}.k-response.s-ok .label{color:var(--a2c)}.s-error .label{color:var(--err)}
.s-warning .label{color:var(--warn)}.k-dialog .label,.k-ui .label{color:#6f42c1}.k-stderr .label{color:var(--err)}
.k-tool_start .label,.k-tool_end .label,.k-tool_output .label,.k-bash_output .label{color:#a05a00}
.blocks{margin:2px 0 4px 12.6em}pre{margin:2px 0;white-space:pre-wrap;word-break:break-word}
.b-thinking{color:var(--dim);font-style:italic}.b-toolcall{color:#a05a00}.b-output{color:#444;max-height:24em;overflow:auto;
background:#fafbfc}.b-error{color:var(--err)}
.frames{margin:2px 0 6px 12.6em}.frame{background:#f6f8fa;border:1px solid var(--line);padding:4px 6px;max-height:30em;overflow:auto}
.fhead{color:var(--dim);display:block}
.has-finding{border-left-color:var(--err);background:var(--hl)}.has-finding.sev-warning{border-left-color:var(--warn);background:var(--hlw)}
.has-finding.sev-info{border-left-color:var(--info);background:#f1f8ff}
.findings{margin:2px 0 4px 12.6em;padding:0;list-style:none}.findings li{margin:1px 0}
.f-error{color:var(--err)}.f-warning{color:var(--warn)}.f-info{color:var(--info)}.rule{font-weight:bold}
.hidden{display:none}footer{color:var(--dim);padding:8px 16px}
"""

JS = """
(function(){
  var items=[].slice.call(document.querySelectorAll('.item'));
  var box=document.getElementById('findings');var fl=[].slice.call(document.querySelectorAll('.findings li, .k-finding'));
  if(fl.length){var h=document.createElement('div');h.innerHTML='<b>'+fl.length+' finding'+(fl.length>1?'s':'')+'</b>';
    var ul=document.createElement('ul');fl.forEach(function(li){var it=li.closest('.item');var a=document.createElement('a');
      a.href='#'+it.id;a.textContent=it.querySelector('.t').textContent.trim()+'  '+li.textContent.trim();
      var e=document.createElement('li');e.className=li.className.indexOf('f-')>=0?li.className:'f-'+(it.dataset.sev||'error');
      e.appendChild(a);ul.appendChild(e);});box.appendChild(h);box.appendChild(ul);}
  else{box.textContent='no findings';}
  var q=document.getElementById('q'),only=document.getElementById('onlyf');
  function apply(){var s=q.value.toLowerCase();items.forEach(function(it){
    var ok=(!s||it.textContent.toLowerCase().indexOf(s)>=0)&&(!only.checked||it.classList.contains('has-finding'));
    it.classList.toggle('hidden',!ok);});}
  q.addEventListener('input',apply);only.addEventListener('change',apply);
  function all(open){document.querySelectorAll('.item>details').forEach(function(d){d.open=open;});}
  document.getElementById('expand').onclick=function(){all(true);};
  document.getElementById('collapse').onclick=function(){all(false);};
})();
"""


def _pretty(frame: Frame) -> str:
    """A frame for reading: indented JSON when it is JSON, else its text."""
    text = frame.data.decode("utf-8", "replace")
    try:
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        text = json.dumps(text, ensure_ascii=False)
    except RecursionError:  # nested too deeply to indent: shown as it came
        pass
    if len(text) > MAX_FRAME_CHARS:
        text = text[:MAX_FRAME_CHARS] + f"\n… {len(text) - MAX_FRAME_CHARS:,} more characters (see the recording)"
    return text


def _finding_li(f: Finding) -> str:
    path = f" <code>{escape(f.path)}</code>" if f.path else ""
    return (f'<li class="f-{escape(f.severity)}"><span class="rule">{escape(f.severity)} {escape(f.rule)}</span>: '
            f"{escape(f.message)}{path}</li>")


def _worst(findings: list[Finding]) -> str:
    order = {"error": 0, "warning": 1, "info": 2}
    return min((f.severity for f in findings), key=lambda s: order.get(s, 3))


def item_html(item: Item) -> str:
    """One item as a ``div``; its frames collapsed in ``details``."""
    classes = [f"item k-{item.kind}"]
    if item.dir:
        classes.append(f"d-{item.dir}")
    if item.status:
        classes.append(f"s-{item.status}")
    if item.injected:
        classes.append("injected")
    findings = list(item.findings) + ([item.finding] if item.finding else [])
    if findings:
        classes.append(f"has-finding sev-{_worst(findings)}")
    head = [f'<span class="t">{item.t:.3f}</span><span class="seq">#{item.seq}</span>']
    mark = ARROWS.get(item.dir or "", "") if item.kind not in ("finding", "eof", "note") else ""
    head.append(f'<span class="arrow">{escape(mark)}</span>')
    tags = (" (continued)" if item.continued else "") + (" (injected)" if item.injected else "")
    head.append(f'<span class="label">{escape(item.label)}{tags}</span>')
    if item.ref is not None:
        head.append(f' <span class="ref">#{escape(item.ref)}</span>')
    if item.latency is not None:
        head.append(f'<span class="lat">({escape(ms(item.latency))})</span>')
    if item.summary:
        head.append(f'<span class="sum">{escape(cut(item.summary, 400))}</span>')
    line = "".join(head)
    out = [f'<div class="{" ".join(classes)}" id="s{item.seq}" data-seq="{item.seq}"'
           + (f' data-sev="{escape(_worst(findings))}"' if findings else "") + ">"]
    if item.frames:
        out.append(f"<details><summary>{line}</summary><div class=\"frames\">")
        for fr in item.frames:
            extra = (" cr" if fr.cr else "") + ("" if fr.nl else " no-newline") + (" injected" if fr.injected else "")
            out.append(f'<pre class="frame" id="f{fr.seq}"><span class="fhead">#{fr.seq} {fr.dir} {fr.t:.6f} '
                       f"{len(fr.data):,} bytes{extra}</span>{escape(_pretty(fr))}</pre>")
        out.append("</div></details>")
    else:
        out.append(f'<div class="line">{line}</div>')
    blocks = [b for b in item.blocks if b.text]
    if blocks:
        out.append('<div class="blocks">')
        for b in blocks:
            title = f"{escape(b.title)}: " if b.title else ""
            out.append(f'<pre class="b-{b.kind}">{title}{escape(clean(b.text))}</pre>')
        out.append("</div>")
    if item.findings:
        out.append('<ul class="findings">' + "".join(_finding_li(f) for f in item.findings) + "</ul>")
    out.append("</div>\n")
    return "".join(out)


def html_page(items: Iterable[Item], *, title: str, meta: str) -> Iterator[str]:
    """The page, in pieces: head, one piece per selected item, foot."""
    yield (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f"<title>{escape(title)}</title><style>{CSS}</style></head><body>\n"
           f"<header><h1>{escape(title)}</h1><p class=\"meta\">{escape(meta)}</p>"
           '<div class="toolbar"><input type="search" id="q" placeholder="filter by text…">'
           '<label><input type="checkbox" id="onlyf"> only findings</label>'
           '<button id="expand">expand all</button><button id="collapse">collapse all</button></div>'
           '<div id="findings"></div></header>\n<main id="timeline">\n')
    n = 0
    for item in items:
        if item.selected:
            n += 1
            yield item_html(item)
    yield (f"</main><footer>{n} items · made by rpcspy · frames are collapsed: click a line to see them</footer>"
           f"<script>{JS}</script></body></html>\n")
