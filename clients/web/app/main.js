// The browser client's entry point: mounts the app into #app.
import { h, render } from "preact";
import htm from "htm";

const html = htm.bind(h);
render(html`<main><h1>Atout</h1></main>`, document.getElementById("app"));
