import { render } from 'preact';
import { LocationProvider } from 'preact-iso';
import '../shared/style.css';
import { App, BASE } from './App.js';

// Links to paths outside the site (the API, /docs) load as pages; links inside it change the page in place.
render(
  <LocationProvider scope={BASE}>
    <App />
  </LocationProvider>,
  document.getElementById('root')!,
);
