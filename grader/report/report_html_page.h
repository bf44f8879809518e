// The HTML report's style and script, inlined into every page so that it opens offline. The script draws
// each picture as plain elements (a cell per array element, a box per sector) with data-* attributes that
// say what each one is, so a learner can hover them and tests can read them back from the rendered page.
#pragma once

#include <string_view>

namespace gpugrade {

inline constexpr std::string_view kReportStyle = R"css(
body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1100px; padding: 0 16px 48px; color: #1b1f24; }
header p { color: #57606a; margin: 12px 0; }
h1 { font-size: 22px; margin: 18px 0 4px; }
.verdict { font-size: 14px; padding: 2px 8px; border-radius: 4px; color: #fff; vertical-align: middle; }
.verdict.pass { background: #1a7f37; }
.verdict.fail { background: #cf222e; }
.points, .meta { color: #57606a; font-size: 14px; font-weight: normal; }
.problems { padding-left: 20px; }
.problem { margin: 10px 0 18px; }
.problem .place { font-family: ui-monospace, monospace; color: #0969da; text-decoration: none; }
.problem .severity { font-weight: bold; color: #cf222e; }
.problem.warning .severity { color: #8250df; }
.problem .kind { font-weight: bold; }
.note { margin: 2px 0 0 16px; color: #57606a; }
details { margin: 4px 0; color: #57606a; font-size: 13px; }
details table { border-collapse: collapse; background: #f6f8fa; margin: 4px 0; }
details th, details td { text-align: left; vertical-align: top; padding: 2px 8px; border-bottom: 1px solid #d0d7de; }
figure.picture { margin: 10px 0; padding: 10px; border: 1px solid #d0d7de; border-radius: 6px; display: inline-block; }
figure.picture figcaption { font-size: 13px; color: #1b1f24; margin-bottom: 8px; max-width: 720px; }
.grid { display: grid; gap: 1px; background: #d0d7de; border: 1px solid #d0d7de; width: max-content; }
.cell { width: 14px; height: 14px; background: #fff; font: 8px/14px ui-monospace, monospace; text-align: center; color: #1b1f24; }
.banks .cell.hit { outline: 2px solid #1b1f24; outline-offset: -2px; font-weight: bold; }
.banks .cell.conflict { outline-color: #cf222e; color: #cf222e; }
.race .cell.race { background: #cf222e; color: #fff; }
.heatmap .cell.ok { background: #dafbe1; }
.heatmap .cell.wrong { background: #fd8c73; }
.heatmap .cell.unwritten { background: #6e7781; }
.legend { display: flex; flex-wrap: wrap; gap: 2px; margin-top: 8px; font: 9px ui-monospace, monospace; }
.legend span { padding: 1px 3px; border-radius: 2px; }
.strip { display: flex; gap: 3px; flex-wrap: wrap; align-items: flex-end; }
.sector { min-width: 26px; height: 34px; border: 1px solid #d0d7de; border-radius: 3px; font: 9px/1.2 ui-monospace, monospace;
          text-align: center; padding: 2px; background: #fff; }
.sector.touched { background: #ffd8b5; border-color: #bc4c00; }
.sector .count { font-weight: bold; font-size: 11px; display: block; }
.gap { align-self: center; color: #57606a; }
.source { font: 13px/1.5 ui-monospace, monospace; background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px;
          padding: 8px 0; margin: 16px 0; overflow-x: auto; }
.src-line { white-space: pre; padding: 0 12px; }
.src-line .number { display: inline-block; width: 3em; color: #8c959f; text-align: right; margin-right: 12px; }
.src-line.has-finding { background: #ffebe9; }
.src-line.has-note { background: #fff8c5; }
.marker { white-space: pre-wrap; margin: 0 12px 4px 4.9em; padding: 2px 8px; border-left: 3px solid #cf222e;
          font-family: system-ui, sans-serif; font-size: 13px; background: #fff; }
)css";

inline constexpr std::string_view kReportScript = R"js(
'use strict';
(function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function bankColour(bank) { return 'hsl(' + Math.round(bank * 360 / 32) + ',75%,84%)'; }
  function dim(t) { return '(' + t.join(',') + ')'; }
  function figure(kind, caption) {
    const f = el('figure', 'picture ' + kind);
    f.appendChild(el('figcaption', '', caption));
    return f;
  }
  function grid(rows, cols) {
    const g = el('div', 'grid');
    g.style.gridTemplateColumns = 'repeat(' + cols + ', 14px)';
    return g;
  }
  function cell(row, col) {
    const c = el('div', 'cell');
    c.dataset.row = row;
    c.dataset.col = col;
    return c;
  }

  // The shared array coloured by bank; the worst warp's lanes outlined where they land, red in the bank
  // that serializes.
  function banks(p) {
    const lanesAt = new Map();
    p.lanes.forEach(function (l) {
      if (!lanesAt.has(l.element)) lanesAt.set(l.element, []);
      lanesAt.get(l.element).push(l.lane);
    });
    const f = figure('banks', p.variable + ' (' + p.rows + ' x ' + p.cols + ' elements), each cell coloured by its bank. ' +
      'Warp ' + p.warp + ' of block ' + dim(p.block) + ' at line ' + p.line + ' (' + p.run + ') touches the outlined cells: ' +
      (p.ways > 1 ? p.ways + ' different words in bank ' + p.conflict_bank + ', so the request takes ' + p.ways + ' passes.'
                  : 'every lane in its own bank, one pass.'));
    f.dataset.line = p.line;
    f.dataset.ways = p.ways;
    f.dataset.conflictBank = p.conflict_bank;
    const g = grid(p.rows, p.cols);
    for (let r = 0; r < p.rows; r++) {
      for (let c = 0; c < p.cols; c++) {
        const index = r * p.cols + c;
        const bank = Math.floor((p.base + index * p.element_size) / 4) % 32;
        const x = cell(r, c);
        x.dataset.bank = bank;
        x.style.background = bankColour(bank);
        x.title = p.variable + ' element ' + index + ', bank ' + bank;
        if (lanesAt.has(index)) {
          const lanes = lanesAt.get(index);
          x.classList.add('hit');
          x.dataset.lanes = lanes.join(' ');
          x.textContent = lanes[0];
          x.title += ', lanes ' + lanes.join(' ');
          if (p.ways > 1 && bank === p.conflict_bank) x.classList.add('conflict');
        }
        g.appendChild(x);
      }
    }
    f.appendChild(g);
    const legend = el('div', 'legend');
    for (let b = 0; b < 32; b++) {
      const s = el('span', '', 'bank ' + b);
      s.style.background = bankColour(b);
      legend.appendChild(s);
    }
    f.appendChild(legend);
    return f;
  }

  // The array with the raced cells: which threads, which lines.
  function race(p) {
    const words = p.cells.map(function (c) {
      return c.index + ': thread ' + c.threads[0] + ' ' + c.verbs[0] + ' it at line ' + c.lines[0] + ', thread ' +
        c.threads[1] + ' ' + c.verbs[1] + ' it at line ' + c.lines[1];
    });
    const f = figure('race', p.variable + ' (' + p.rows + ' x ' + p.cols + '): ' + words.join('; ') +
      '; nothing orders them (no barrier between).');
    f.dataset.line = p.line;
    const raced = new Map();
    p.cells.forEach(function (c) { raced.set(c.row * p.cols + c.col, c); });
    const g = grid(p.rows, p.cols);
    for (let r = 0; r < p.rows; r++) {
      for (let c = 0; c < p.cols; c++) {
        const x = cell(r, c);
        const hit = raced.get(r * p.cols + c);
        if (hit) {
          x.classList.add('race');
          x.dataset.threads = hit.threads.join(' ');
          x.dataset.lines = hit.lines.join(' ');
          x.textContent = '!';
          x.title = hit.index + ': lines ' + hit.lines.join(' and ');
        }
        g.appendChild(x);
      }
    }
    f.appendChild(g);
    return f;
  }

  // The 32-byte sectors one warp's request touches, with how many lanes land in each.
  function sectors(p) {
    const lanesIn = new Map();
    p.lanes.forEach(function (l) {
      if (!lanesIn.has(l.sector)) lanesIn.set(l.sector, []);
      lanesIn.get(l.sector).push(l.lane);
    });
    const touched = Array.from(lanesIn.keys()).sort(function (a, b) { return a - b; });
    const f = figure('sectors', 'Warp ' + p.warp + ' of block ' + dim(p.block) + ' at line ' + p.line + ' (' + p.run +
      ') on ' + p.buffer + ': its lanes touch ' + p.sectors + ' sectors of 32 bytes, where ' + p.min_sectors +
      ' would hold what they ask for. Each box is a sector; the number is how many lanes land in it.');
    f.dataset.line = p.line;
    f.dataset.sectors = p.sectors;
    const strip = el('div', 'strip');
    const first = touched[0], last = touched[touched.length - 1];
    const contiguous = last - first < 64;
    let previous = null;
    const shown = contiguous ? Array.from({ length: last - first + 1 }, function (_, i) { return first + i; }) : touched;
    shown.forEach(function (s) {
      if (previous !== null && s !== previous + 1) strip.appendChild(el('span', 'gap', '...'));
      previous = s;
      const box = el('div', 'sector');
      box.dataset.sector = s;
      const lanes = lanesIn.get(s);
      if (lanes) {
        box.classList.add('touched');
        box.dataset.lanes = lanes.join(' ');
        box.appendChild(el('span', 'count', String(lanes.length)));
        box.title = p.buffer + ' bytes ' + s * 32 + '-' + (s * 32 + 31) + ', lanes ' + lanes.join(' ');
      }
      box.appendChild(el('span', '', '#' + s));
      strip.appendChild(box);
    });
    f.appendChild(strip);
    return f;
  }

  // The output, a cell per element (or per square of elements when it is large): wrong, never written, right.
  function heatmap(p) {
    const state = new Uint8Array(p.rows * p.cols);
    p.wrong.forEach(function (i) { state[i] = 1; });
    p.unwritten.forEach(function (i) { state[i] = 2; });
    const scale = Math.max(1, Math.ceil(Math.sqrt(p.rows * p.cols / 16384)));
    const rows = Math.ceil(p.rows / scale), cols = Math.ceil(p.cols / scale);
    const f = figure('heatmap', p.buffer + ' at ' + p.run + ': ' + p.wrong.length + ' wrong (orange) and ' + p.unwritten.length +
      ' never written (grey) of ' + p.elements + ' elements, drawn as ' + p.shape_from +
      (scale > 1 ? ', ' + scale + ' x ' + scale + ' elements a cell' : '') +
      (p.truncated ? '; only the first ' + (p.wrong.length + p.unwritten.length) + ' are known' : '') + '.');
    f.dataset.rows = p.rows;
    f.dataset.cols = p.cols;
    const g = grid(rows, cols);
    const names = ['ok', 'wrong', 'unwritten'];
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        let worst = 0;
        for (let y = r * scale; y < Math.min(p.rows, (r + 1) * scale); y++)
          for (let x = c * scale; x < Math.min(p.cols, (c + 1) * scale); x++) worst = Math.max(worst, state[y * p.cols + x]);
        const x = cell(r * scale, c * scale);
        x.classList.add(names[worst]);
        x.title = p.buffer + '[' + ((r * scale) * p.cols + c * scale) + '] row ' + r * scale + ', column ' + c * scale + ': ' + names[worst];
        g.appendChild(x);
      }
    }
    f.appendChild(g);
    return f;
  }

  const draw = { banks: banks, race: race, sectors: sectors, heatmap: heatmap };
  document.querySelectorAll('section.result').forEach(function (section) {
    const data = section.querySelector('script.pictures');
    const pictures = data ? JSON.parse(data.textContent) : [];
    section.querySelectorAll('.picture-slot').forEach(function (slot) {
      const p = pictures[Number(slot.dataset.picture)];
      if (p && draw[p.type]) slot.appendChild(draw[p.type](p));
    });
  });
  document.body.dataset.drawn = 'true';
})();
)js";

}  // namespace gpugrade
