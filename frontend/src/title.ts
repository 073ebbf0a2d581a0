// The window's title says what the page shows once a scan is rendered: "Plugboard — 8 plugins · 2
// errors". In the desktop window it goes through the Wails runtime (the title of a GTK window is not
// the document's); in a browser it is the tab's title. The desktop test reads it back from the X
// window to know that the catalog reached the page and was rendered there.

interface TitleRuntime {
  WindowSetTitle?: (title: string) => void;
}

export function setTitle(detail: string): void {
  const title = detail ? `Plugboard — ${detail}` : 'Plugboard'; // i18n-ignore: the product's name
  document.title = title;
  (window as unknown as { runtime?: TitleRuntime }).runtime?.WindowSetTitle?.(title);
}
