import { render } from 'preact';
import '../shared/style.css';
import { App } from './App.js';

render(<App />, document.getElementById('root')!);
