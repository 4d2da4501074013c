package datasets

import (
	"cmp"
	"fmt"
	"io/fs"
	"strings"

	"github.com/samplingbias/workbench/internal/setting"
)

// Inputs are the files that Load reads for some settings, and only those: other files of the
// data folder (a README, a NOTES.txt, a file of another layout) are not among them.
type Inputs struct {
	// FS holds the files. Dir is its directory on disk, or "" when the files are embedded in
	// the module (the Wikispeedia graph).
	FS  fs.FS
	Dir string
	// Names are the files read, as paths of FS in the order Load reads them ("name.gz" when
	// that is the file read).
	Names []string
}

// ListInputs resolves a copy of s and returns the files Load reads for it, found by the same
// rules as the loaders (a missing required file is the loader's error). The synthetic source
// reads no file: its data are determined by its settings and the seed, and Names is empty.
func ListInputs(s Settings) (Inputs, error) {
	if err := s.Resolve(); err != nil {
		return Inputs{}, err
	}
	var (
		src   files
		names []string
		err   error
	)
	switch s.Source {
	case SourceWikilinks:
		src, names, err = wikilinksInputs(s)
	case SourceXMC:
		src, names, err = xmcInputs(s)
	case SourceInteractions:
		src, names, err = interactionsInputs(s)
	case SourceSynthetic:
		return Inputs{}, nil
	default:
		return Inputs{}, fmt.Errorf("source: %q has no loader (datasets/load.go dispatches %s)", s.Source, strings.Join(setting.Names(sources), ", "))
	}
	if err != nil {
		return Inputs{}, err
	}
	in := Inputs{FS: src.fsys}
	if src.disk {
		in.Dir = src.dir
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		found, err := src.need(n)
		if err != nil {
			return Inputs{}, err
		}
		in.Names = append(in.Names, found)
	}
	return in, nil
}

// wikilinksInputs: the articles file when there is one, the links file, the categories file
// when there is one (see readWikilinks).
func wikilinksInputs(s Settings) (files, []string, error) {
	src, links, _, err := wikilinksSource(s)
	if err != nil {
		return files{}, nil, err
	}
	return src, []string{src.find(articlesFile), links, src.find(categoriesFile)}, nil
}

// xmcInputs: the label file of ARFF data, the train file, the test file (see readXMC).
func xmcInputs(s Settings) (files, []string, error) {
	src, file, err := splitPath(s.Path)
	if err != nil {
		return files{}, nil, err
	}
	train, test, err := xmcFiles(src, file, s)
	if err != nil {
		return files{}, nil, err
	}
	var labels string
	if xmcFormat(s.XMC, train) == XMCFormatARFF {
		if labels, err = labelsFile(src, s.XMC); err != nil {
			return files{}, nil, err
		}
	}
	return src, []string{labels, train, test}, nil
}

// interactionsInputs: the feature files, then the interactions file (see readInteractionData).
func interactionsInputs(s Settings) (files, []string, error) {
	src, file, err := splitPath(s.Path)
	if err != nil {
		return files{}, nil, err
	}
	var names []string
	for _, fl := range featureLists(s.Interactions) {
		for _, ff := range fl.list {
			names = append(names, ff.File)
		}
	}
	return src, append(names, cmp.Or(file, s.Interactions.File)), nil
}
