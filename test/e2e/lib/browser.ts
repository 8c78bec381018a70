// Headless Debian Chromium over the DevTools protocol, for screenshots of n8n's editor and forms.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { WebSocket } from 'undici';

import { root, run, waitFor, type Processes } from './realN8n';

export class Browser {
	private constructor(
		private readonly socket: WebSocket,
		private nextId = 0,
	) {}

	/** Starts Chromium (installing Debian's package and CJK fonts when missing) and attaches to its first page. */
	static async start(
		processes: Processes,
		logFolder: string,
		log: (message: string) => void,
	): Promise<Browser> {
		if (!existsSync('/usr/bin/chromium')) {
			log('installing Debian chromium');
			run('apt-get', ['update']);
			run('apt-get', ['install', '-y', 'chromium'], {
				env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			});
		}
		// The sample sheet has Japanese and Korean names: without CJK fonts they render as boxes.
		if (!existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc')) {
			log('installing Debian fonts-noto-cjk');
			run('apt-get', ['update']);
			run('apt-get', ['install', '-y', 'fonts-noto-cjk'], {
				env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			});
		}
		const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
		processes.spawn(
			'/usr/bin/chromium',
			[
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--disable-quic',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				`--user-data-dir=${profile}`,
				'--remote-debugging-port=0',
				'--window-size=1600,1000',
				'about:blank',
			],
			{ cwd: root, env: process.env },
			join(logFolder, 'chromium.log'),
		);
		let devtoolsPort = 0;
		await waitFor(
			'Chromium DevTools',
			async () => {
				devtoolsPort = Number(
					readFileSync(join(profile, 'DevToolsActivePort'), 'utf8').split('\n')[0],
				);
				return devtoolsPort > 0;
			},
			30,
		);
		const targets = (await (
			await fetch(`http://127.0.0.1:${devtoolsPort}/json/list`)
		).json()) as Array<{ type: string; webSocketDebuggerUrl: string }>;
		const page = targets.find((target) => target.type === 'page')!;
		const socket = new WebSocket(page.webSocketDebuggerUrl);
		await new Promise((done) => socket.addEventListener('open', done, { once: true }));
		const browser = new Browser(socket);
		await browser.send('Network.enable');
		await browser.send('Emulation.setDeviceMetricsOverride', {
			width: 1600,
			height: 1000,
			deviceScaleFactor: 1,
			mobile: false,
		});
		return browser;
	}

	async send(
		method: string,
		params: Record<string, unknown> = {},
	): Promise<Record<string, unknown>> {
		return await new Promise((done) => {
			const id = ++this.nextId;
			const listener = (event: { data: unknown }) => {
				const message = JSON.parse(String(event.data));
				if (message.id !== id) return;
				this.socket.removeEventListener('message', listener);
				done(message.result ?? message);
			};
			this.socket.addEventListener('message', listener);
			this.socket.send(JSON.stringify({ id, method, params }));
		});
	}

	/** Sets n8n's session cookie (`name=value`) for `base`. */
	async setCookie(base: string, cookie: string): Promise<void> {
		const [name, value] = cookie.split('=');
		await this.send('Network.setCookie', { name, value, url: base });
	}

	async evaluate<T>(expression: string): Promise<T | undefined> {
		const result = (await this.send('Runtime.evaluate', { expression, returnByValue: true })) as {
			result?: { value?: T };
		};
		return result.result?.value;
	}

	/**
	 * Opens `url`, waits until `ready` (a page expression) is true and the page settles, runs `prepare`
	 * (a page expression, e.g. closing a popover) if given, saves a PNG.
	 */
	async screenshot(
		url: string,
		ready: string,
		path: string,
		settleMs = 1500,
		prepare?: string,
	): Promise<void> {
		await this.send('Page.navigate', { url });
		await this.capture(ready, path, settleMs, prepare);
	}

	/** The page as it is now, once `ready` is true and it settles (see screenshot): no navigation. */
	async capture(ready: string, path: string, settleMs = 1500, prepare?: string): Promise<void> {
		// n8n's editor is a single-page app: give it time to load and render.
		await waitFor(
			`the page to show ${ready}`,
			async () => (await this.evaluate<boolean>(ready)) === true,
			90,
		);
		await new Promise((done) => setTimeout(done, settleMs));
		if (prepare) {
			await this.evaluate(prepare);
			await new Promise((done) => setTimeout(done, 300));
		}
		const shot = (await this.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
		mkdirSync(dirname(path), { recursive: true });
		writeFileSync(path, Buffer.from(shot.data, 'base64'));
	}

	close(): void {
		this.socket.close();
	}
}
