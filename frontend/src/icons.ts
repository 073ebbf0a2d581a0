// A few inline SVG icons (no icon font, no network).

const NS = 'http://www.w3.org/2000/svg';

function icon(paths: string[], size = 16): SVGSVGElement {
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('width', String(size));
  svg.setAttribute('height', String(size));
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '2');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  for (const d of paths) {
    const p = document.createElementNS(NS, 'path');
    p.setAttribute('d', d);
    svg.append(p);
  }
  return svg;
}

export const icons = {
  rescan: () => icon(['M21 12a9 9 0 1 1-2.64-6.36', 'M21 3v6h-6']),
  moon: () => icon(['M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z']),
  sun: () =>
    icon([
      'M12 16a4 4 0 1 0 0-8 4 4 0 0 0 0 8z',
      'M12 2v2',
      'M12 20v2',
      'M4.93 4.93l1.41 1.41',
      'M17.66 17.66l1.41 1.41',
      'M2 12h2',
      'M20 12h2',
      'M6.34 17.66l-1.41 1.41',
      'M19.07 4.93l-1.41 1.41',
    ]),
  pause: () => icon(['M9 5v14', 'M15 5v14']),
  play: () => icon(['M7 4l13 8-13 8z']),
  logo: () => icon(['M7 3v6', 'M17 3v6', 'M5 9h14v3a7 7 0 0 1-14 0z', 'M12 19v3'], 20),
};
