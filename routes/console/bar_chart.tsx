/**
 * A small server-rendered SVG bar chart (no chart library, no script, no style attribute: the
 * colours come from the stylesheet's classes). Each bar carries its value as a tooltip, and the
 * chart has a text title for screen readers.
 */

export interface BarPoint {
  label: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 120;
const GAP = 2;

/** The bars' geometry in the chart's viewBox: the tallest value fills the height. */
export function barRects(points: readonly BarPoint[]) {
  const max = Math.max(0, ...points.map((point) => point.value));
  const step = points.length ? WIDTH / points.length : WIDTH;
  return points.map((point, index) => {
    const height = max > 0 ? Math.max(point.value > 0 ? 1 : 0, (point.value / max) * HEIGHT) : 0;
    return {
      x: Math.round(index * step * 100) / 100,
      y: Math.round((HEIGHT - height) * 100) / 100,
      width: Math.max(1, Math.round((step - GAP) * 100) / 100),
      height: Math.round(height * 100) / 100,
    };
  });
}

export function BarChart(
  { id, title, points, format }: {
    id: string;
    title: string;
    points: readonly BarPoint[];
    format: (value: number) => string;
  },
) {
  const rects = barRects(points);
  const max = Math.max(0, ...points.map((point) => point.value));
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-labelledby={`${id}-title`}
      >
        <title id={`${id}-title`}>{`${title}; highest ${format(max)}`}</title>
        <line class="axis" x1="0" y1={HEIGHT} x2={WIDTH} y2={HEIGHT} />
        {rects.map((rect, index) => (
          <rect class="bar" x={rect.x} y={rect.y} width={rect.width} height={rect.height}>
            <title>{`${points[index].label}: ${format(points[index].value)}`}</title>
          </rect>
        ))}
      </svg>
      <figcaption>
        {title}{" "}
        <span class="muted">
          ({points[0]?.label} – {points.at(-1)?.label}, highest {format(max)})
        </span>
      </figcaption>
    </figure>
  );
}
