// The console's entry point: one script file, loaded by index.html; nothing runs inline.
import { render } from 'preact';
import { App } from './app';

render(<App />, document.getElementById('app')!);
