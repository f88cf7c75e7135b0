/**
 * The web interface of Vigil (issue #16, ADR 0020): a client of /api/v1 like any other, with
 * the session's bearer token. Layout, navigation by role, and the page for the current #route.
 */
import { Fragment, render } from 'preact';
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, signOut } from './api';
import { may } from './roles';
import { href, useLocation, Location } from './router';
import { Me, session } from './session';
import { Page } from './ui';
import { AccountPage } from './pages/account';
import { SignIn } from './pages/sign-in';
import { pages } from './pages';

function useSession() {
  const [, setTick] = useState(0);
  useEffect(() => session.subscribe(() => setTick((t) => t + 1)), []);
  return { token: session.token(), me: session.me() };
}

interface NavItem { path: string; label: string; shown: (me: Me | null) => boolean }
const everyone = () => true;
const NAV: NavItem[] = [
  { path: '/', label: 'Estate', shown: everyone },
  { path: '/targets', label: 'Targets', shown: everyone },
  { path: '/issues', label: 'Backlog', shown: everyone },
  { path: '/exceptions', label: 'Exceptions', shown: everyone },
  { path: '/scans', label: 'Scans', shown: everyone },
  { path: '/gate', label: 'Gate verdicts', shown: everyone },
  { path: '/audit', label: 'Audit log', shown: may.readAudit },
  // Everyone has a section there: their own API keys and the installation's settings (read only for most roles).
  { path: '/admin', label: 'Administration', shown: everyone },
];

function isCurrent(item: NavItem, loc: Location): boolean {
  const first = `/${loc.path[0] ?? ''}`;
  if (item.path === '/') return first === '/';
  if (item.path === '/targets') return ['/targets', '/repositories', '/containers', '/projects'].includes(first);
  return first === item.path || (item.path === '/issues' && first === '/issues');
}

function Layout({ me, loc, children }: { me: Me | null; loc: Location; children: ComponentChildren }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const brand = document.querySelector('meta[name=application-name]')?.getAttribute('content') ?? 'Vigil';
  const onSignOut = () => { signOut(); location.hash = '#/'; };
  useEffect(() => setMenuOpen(false), [loc]);
  // The route shown, once its page has rendered (its loading state included): tests and tools wait on it.
  useEffect(() => { document.body.dataset.route = location.hash || '#/'; }, [loc]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <a class="brand" href="#/">{brand}</a>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>Menu</button>
        <nav id="nav" aria-label="Main" class={menuOpen ? 'open' : ''}>
          <ul>{NAV.filter((n) => n.shown(me)).map((n) => <li><a href={href(n.path)} aria-current={isCurrent(n, loc) ? 'page' : undefined}>{n.label}</a></li>)}</ul>
        </nav>
        <div class="who">
          <a href="#/account" aria-current={loc.path[0] === 'account' ? 'page' : undefined}>{me?.displayName ?? me?.username}</a>
          <button type="button" class="link" onClick={onSignOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}

function NotFound() {
  return <Page title="No such page"><p>This address names no page of the interface. <a href="#/">Go to the estate</a>.</p></Page>;
}

function Route({ loc, me }: { loc: Location; me: Me }) {
  if (loc.path[0] === 'account') return <AccountPage />;
  for (const page of pages) {
    const params = page.match(loc.path);
    // Keyed by the path: another issue or target is a fresh page, not the last one's form state.
    if (params) return <Fragment key={loc.path.join('/')}>{page.render({ params, query: loc.query, me })}</Fragment>;
  }
  return <NotFound />;
}

function App() {
  const { token, me } = useSession();
  const loc = useLocation();
  useEffect(() => {
    if (token && !me) call<Me>('GET', '/me').then((a) => session.known(a.body), () => { /* a 401 ends the session */ });
  }, [token, me]);
  if (!token) return <SignIn />;
  if (!me) return <main id="main"><p role="status">Loading…</p></main>;
  return <Layout me={me} loc={loc}><Route loc={loc} me={me} /></Layout>;
}

render(<App />, document.getElementById('app')!);
