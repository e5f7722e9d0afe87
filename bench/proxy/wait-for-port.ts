// Waits until something accepts TCP connections on 127.0.0.1:port (a server started as a child).
import net from 'node:net';

export async function waitForPort(port: number, attempts = 200): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on ${port}`);
}
