// nginx as the reference reverse proxy: found at /usr/sbin/nginx, or installed from Debian's
// nginx-light when running as root. Configured like our proxy: one worker process, keep-alive
// upstream pool, no buffering either way, the connector's Authorization header set.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../service/free-port';
import { stop } from './child';
import { waitForPort } from './wait-for-port';

const NGINX = '/usr/sbin/nginx';

export function findOrInstallNginx(): string | null {
  if (existsSync(NGINX)) return NGINX;
  if (process.getuid?.() !== 0) return null;
  console.log('installing nginx-light with apt-get ...');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'ignore' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'nginx-light'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  return existsSync(NGINX) ? NGINX : null;
}

export interface NginxRoutes {
  /** location path → upstream 127.0.0.1 port and path */
  [location: string]: { port: number; path: string };
}

export async function startNginx(binary: string, routes: NginxRoutes, token: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, sub));
  const port = await freePort();
  writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port, routes, token));
  const child = spawn(binary, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port);
  return {
    port,
    pid: child.pid!,
    async stop() {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function config(dir: string, port: number, routes: NginxRoutes, token: string): string {
  const upstreams = Object.values(routes).map((r, i) => `
    upstream u${i} { server 127.0.0.1:${r.port}; keepalive 64; keepalive_requests 1000000; }
    `).join('');
  const locations = Object.entries(routes).map(([location, r], i) => `
      location = ${location} {
        proxy_pass http://u${i}${r.path};
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Authorization "Bearer ${token}";
        proxy_buffering off;
        proxy_request_buffering off;
        proxy_read_timeout 1h;
      }`).join('');
  return `
worker_processes 1;
daemon off;
${process.getuid?.() === 0 ? 'user root;' : ''}
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 1000000;
  ${upstreams}
  server {
    listen 127.0.0.1:${port};
    ${locations}
  }
}
`;
}
