// The site's Plotly.js: the core (which always holds the scatter trace and the components:
// legend, hover, colorbar, annotations, shapes, modebar...) plus the three other trace
// types the leaderboard draws. Keep TRACES in build.mjs in step with this list.
'use strict';

var Plotly = require('plotly.js/lib/core');

Plotly.register([
    require('plotly.js/lib/bar'), // model page: English-Arabic gap; compare page: leaf differences
    require('plotly.js/lib/heatmap'), // model page: leaf scores
    require('plotly.js/lib/scatterpolar') // radars: overview, model and compare pages
]);

window.Plotly = Plotly;
