// The page's service worker: the static files (the page, its styles, its
// modules, the view library, the translations, the icons) are kept in a cache,
// so that a phone that has been here opens the page at once, even on a poor
// line; each is fetched again behind the scenes and the cache updated
// (stale-while-revalidate), so a new version shows at the next visit. Only
// GET requests of this origin are touched; the game itself is a WebSocket,
// which a service worker never sees.
const CACHE = "atout-static-v1";

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys().then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  event.respondWith(
    caches.open(CACHE).then(async (cache) => {
      const kept = await cache.match(request, { ignoreSearch: url.pathname === "/" || url.pathname.endsWith("/index.html") });
      const fresh = fetch(request)
        .then((response) => {
          if (response.ok && response.type === "basic") cache.put(request, response.clone());
          return response;
        })
        .catch(() => kept || Response.error());
      if (kept) {
        event.waitUntil(fresh.catch(() => null));
        return kept;
      }
      return fresh;
    }),
  );
});
