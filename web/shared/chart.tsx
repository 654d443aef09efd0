import { t } from './i18n/index.js';
import { formatNumber } from './format.js';
export interface ChartPoint {
  readonly label: string;
  readonly value: number;
  /** A second series drawn as a line (e.g. delivered). */
  readonly line?: number;
}

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 12, right: 12, bottom: 36, left: 48 };

/** Rounds the top of the scale up to 1, 2 or 5 times a power of ten. */
function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10;
  return step * power;
}

/**
 * A bar chart drawn in SVG, with an optional line: no chart library. It scales to its container's width; the
 * numbers themselves are in the table beside it, so the picture carries a summary for screen readers only.
 */
export function BarChart({
  title,
  points,
  barLabel,
  lineLabel,
}: {
  title: string;
  points: readonly ChartPoint[];
  barLabel: string;
  lineLabel?: string;
}) {
  const max = niceMax(Math.max(0, ...points.map((p) => Math.max(p.value, p.line ?? 0))));
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(1, points.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const labelEvery = Math.max(1, Math.ceil(points.length / 10));
  const total = points.reduce((sum, p) => sum + p.value, 0);
  const hasLine = lineLabel !== undefined && points.some((p) => p.line !== undefined);
  const linePath = hasLine
    ? points
        .map(
          (p, i) => `${i === 0 ? 'M' : 'L'}${(PAD.left + slot * i + slot / 2).toFixed(1)},${y(p.line ?? 0).toFixed(1)}`,
        )
        .join(' ')
    : '';
  const summary =
    t('chart.summary', { title, groups: points.length, total: formatNumber(total), what: barLabel.toLowerCase() }) +
    (points.length ? t('chart.most', { most: formatNumber(Math.max(...points.map((p) => p.value))) }) : '');
  return (
    // Focusable: below 600 px the figure scrolls sideways, and a keyboard must reach what is out of sight.
    <figure class="chart" tabIndex={0}>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="xMidYMid meet">
        <title>{summary}</title>
        {[0, 0.25, 0.5, 0.75, 1].map((f) => (
          <g key={f}>
            <line class="grid" x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max * f)} y2={y(max * f)} />
            <text class="axis" x={PAD.left - 6} y={y(max * f) + 4} text-anchor="end">
              {formatNumber(Number((max * f).toPrecision(3)))}
            </text>
          </g>
        ))}
        {points.map((p, i) => (
          <g key={p.label}>
            <rect
              class="bar"
              x={PAD.left + slot * i + (slot - barW) / 2}
              y={y(p.value)}
              width={barW}
              height={Math.max(0, PAD.top + innerH - y(p.value))}
            >
              <title>
                {`${p.label}: ${formatNumber(p.value)}` +
                  (p.line !== undefined && lineLabel ? `, ${lineLabel.toLowerCase()} ${formatNumber(p.line)}` : '')}
              </title>
            </rect>
            {i % labelEvery === 0 && (
              <text class="axis" x={PAD.left + slot * i + slot / 2} y={HEIGHT - PAD.bottom + 16} text-anchor="middle">
                {p.label.length > 10 ? `${p.label.slice(0, 9)}…` : p.label}
              </text>
            )}
          </g>
        ))}
        {hasLine && <path class="line" d={linePath} fill="none" />}
      </svg>
      <figcaption>
        <span class="key bar-key" aria-hidden="true" /> {barLabel}
        {hasLine && (
          <>
            {' '}
            <span class="key line-key" aria-hidden="true" /> {lineLabel}
          </>
        )}
      </figcaption>
    </figure>
  );
}
