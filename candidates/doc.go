// Package candidates describes a training step as the loss sees it: the geometry of its score
// matrix and the named side inputs that come with it.
//
// A sampler declares the geometry (Geometry): how many rows a step scores (the batch's examples,
// or several rows per example, some of them padding), which item rows its columns are, where each
// row's positive sits, which columns every row shares and which are a row's own, which item rows
// are held constant, and whether the columns are the whole corpus. The trainer builds the score
// matrix from it, the loss checks its input against it and reads each row's positive from it,
// and the memory estimate counts its rows and columns: the geometry is described once, here.
//
// A step's per-row and per-column quantities are named vectors (Side, held by Step) declared by
// their producers: the sampler (LogQ and LogP, and any further quantity a sampler declares), the
// training label prior (LogPrior) and the data (Rewards, Positives, and the per-item values a
// dataset adds); a side input has a value per item, per row, or per entry of the score matrix
// (PerEntry, held sparsely: the known positives of each row).
// A loss reads them by name (losses.Expr.Side), so that a quantity one sampler or dataset adds
// reaches a loss that reads it without a change to the packages in between; a loss that reads a
// name the step does not have is an error naming the loss and the sampler.
//
// The package imports none of the workbench's other packages: samplers produce what it
// describes, and losses, models and workbench consume it.
package candidates
